#!/usr/bin/env bash
# Builds the library as it was at REV into .devbuild/old/ (stripped, xz-compressed, ~1.5 MB), for
# the `oldnew` step of bench/run_session.sh: the old and the new library timed in interleaved
# processes of one device call. Run after bench/carry_build.sh (which empties .devbuild/).
#   bash bench/old_library.sh REV
# Why this way: a second build tree at REV compiles every kernel (~20 minutes on 2 cores); here
# only the files under src/ and include/ that differ from REV are swapped into this tree, the
# library target is rebuilt (the TUs that include them; ccache keeps both versions), and the files
# are put back, also when the build fails or is interrupted. Files added since REV are left in
# place and ones deleted since REV are not restored: the REV's library must build from this tree's
# file list (true for a kernel-body change, the case this is for).
set -euo pipefail
cd "$(dirname "$0")/.."
rev="${1:?usage: bench/old_library.sh REV}"
git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || { echo "old_library: no commit $rev" >&2; exit 2; }
[[ -f build/build.ninja ]] || { echo "old_library: configure and build build/ first" >&2; exit 2; }
if [[ -n "$(git status --porcelain -- src include)" ]]; then
  echo "old_library: src/ or include/ has uncommitted changes; commit or stash them first" >&2
  exit 2
fi
mapfile -t changed < <(git diff --name-only --diff-filter=M "$rev" HEAD -- src include)
if (( ${#changed[@]} == 0 )); then
  echo "old_library: src/ and include/ are the same at $rev and HEAD: nothing to compare" >&2
  exit 2
fi
restore() { git checkout HEAD -- "${changed[@]}"; }
trap restore EXIT
echo "old_library: ${changed[*]} as at $rev"
for f in "${changed[@]}"; do git show "$rev:$f" >"$f"; done
ninja -C build tileglu >/dev/null
mkdir -p .devbuild/old
lib="$(readlink -f build/libtileglu.so)"
strip --strip-debug -o .devbuild/old/"$(basename "$lib")" "$lib"
xz -T2 -f .devbuild/old/"$(basename "$lib")"
git rev-parse --short "$rev" >.devbuild/old/REV
restore
trap - EXIT
# The current library again (ccache hits: its objects were compiled before).
ninja -C build tileglu >/dev/null
ls -la .devbuild/old
