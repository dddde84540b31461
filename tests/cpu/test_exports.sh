#!/usr/bin/env bash
# libtileglu.so must export the C ABI of include/tileglu/tileglu.h and no C++ internals.
#   test_exports.sh <path to libtileglu.so>
set -euo pipefail
lib="$1"
exported="$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort)"
want="$(printf '%s\n' tileglu_last_error_message tileglu_query_config tileglu_status_string \
          tileglu_swiglu tileglu_swiglu_separate tileglu_swiglu_stacked \
          tileglu_config_count tileglu_config_at tileglu_load_tuning_table | sort)"
missing="$(comm -13 <(echo "$exported") <(echo "$want"))"
tileglu_internal="$(echo "$exported" | grep -E 'tileglu' | grep -vxF "$want" || true)"
status=0
if [[ -n "$missing" ]]; then echo "missing exports: $missing"; status=1; fi
if [[ -n "$tileglu_internal" ]]; then echo "internal symbols exported: $tileglu_internal"; status=1; fi
echo "$(echo "$exported" | wc -l) symbols exported by $(basename "$lib")"
exit $status
