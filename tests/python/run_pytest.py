"""ctest's entry to tests/python: runs pytest with the given arguments when pytest is importable;
otherwise says so and exits 77, which tests/CMakeLists.txt declares as 'skipped'."""
import sys

try:
    import pytest
except ImportError as e:
    print(f"python_tests: SKIPPED: pytest is not importable by {sys.executable} ({e}); "
          "`python3 -m pip install pytest` to run tests/python")
    sys.exit(77)

code = pytest.main(sys.argv[1:])
sys.exit(1 if code == pytest.ExitCode.NO_TESTS_COLLECTED else int(code))
