if(EXISTS "/work/main/build/tests/tileglu_cpu_tests")
  if(NOT EXISTS "/work/main/build/tests/tileglu_cpu_tests[1]_tests.cmake" OR
     NOT "/work/main/build/tests/tileglu_cpu_tests[1]_tests.cmake" IS_NEWER_THAN "/work/main/build/tests/tileglu_cpu_tests" OR
     NOT "/work/main/build/tests/tileglu_cpu_tests[1]_tests.cmake" IS_NEWER_THAN "${CMAKE_CURRENT_LIST_FILE}")
    include("/usr/share/cmake-3.25/Modules/GoogleTestAddTests.cmake")
    gtest_discover_tests_impl(
      TEST_EXECUTABLE [==[/work/main/build/tests/tileglu_cpu_tests]==]
      TEST_EXECUTOR [==[]==]
      TEST_WORKING_DIR [==[/work/main/build/tests]==]
      TEST_EXTRA_ARGS [==[]==]
      TEST_PROPERTIES [==[]==]
      TEST_PREFIX [==[]==]
      TEST_SUFFIX [==[]==]
      TEST_FILTER [==[]==]
      NO_PRETTY_TYPES [==[FALSE]==]
      NO_PRETTY_VALUES [==[FALSE]==]
      TEST_LIST [==[tileglu_cpu_tests_TESTS]==]
      CTEST_FILE [==[/work/main/build/tests/tileglu_cpu_tests[1]_tests.cmake]==]
      TEST_DISCOVERY_TIMEOUT [==[5]==]
      TEST_XML_OUTPUT_DIR [==[]==]
    )
  endif()
  include("/work/main/build/tests/tileglu_cpu_tests[1]_tests.cmake")
else()
  add_test(tileglu_cpu_tests_NOT_BUILT tileglu_cpu_tests_NOT_BUILT)
endif()
