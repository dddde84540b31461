# CMake generated Testfile for 
# Source directory: /work/main/tests
# Build directory: /work/main/build/tests
# 
# This file includes the relevant testing commands required for 
# testing this directory and lists subdirectories to be tested as well.
include("/work/main/build/tests/tileglu_cpu_tests[1]_include.cmake")
include("/work/main/build/tests/tileglu_gpu_tests[1]_include.cmake")
add_test([=[libtileglu_exports_only_the_c_abi]=] "bash" "/work/main/tests/cpu/test_exports.sh" "/work/main/build/libtileglu.so.0.1.0")
set_tests_properties([=[libtileglu_exports_only_the_c_abi]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;21;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[nvcc_guard]=] "bash" "/work/main/tests/cpu/test_nvcc_guard.sh" "/work/main/cmake/nvcc_guard.sh")
set_tests_properties([=[nvcc_guard]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;25;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[gen_readme_table]=] "/root/.pyenv/shims/python3" "/work/main/tests/cpu/test_gen_readme_table.py" "/work/main/scripts/gen_readme_table.py")
set_tests_properties([=[gen_readme_table]=] PROPERTIES  _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;30;add_test;/work/main/tests/CMakeLists.txt;0;")
add_test([=[python_tests]=] "/root/.pyenv/shims/python3" "/work/main/tests/python/run_pytest.py" "-q" "-rs" "-p" "no:cacheprovider" "/work/main/tests/python")
set_tests_properties([=[python_tests]=] PROPERTIES  ENVIRONMENT "TILEGLU_LIBRARY=/work/main/build/libtileglu.so.0.1.0" SKIP_RETURN_CODE "77" WORKING_DIRECTORY "/work/main" _BACKTRACE_TRIPLES "/work/main/tests/CMakeLists.txt;47;add_test;/work/main/tests/CMakeLists.txt;0;")
