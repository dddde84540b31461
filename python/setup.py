"""Records the checkout this package is installed from, so that an installed tileglu finds
<checkout>/build/libtileglu.so (python/tileglu/_lib.py). Everything else is in pyproject.toml."""
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent.parent


class BuildPyWithRepoRoot(build_py):
    def run(self):
        super().run()
        if (ROOT / "include" / "tileglu" / "tileglu.h").is_file():
            target = Path(self.build_lib) / "tileglu" / "_install_info.py"
            target.write_text("# Written by setup.py at install time.\n"
                              f"REPO_ROOT = {str(ROOT)!r}\n")


setup(cmdclass={"build_py": BuildPyWithRepoRoot})
