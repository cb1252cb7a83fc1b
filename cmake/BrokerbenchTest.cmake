# bb_test(NAME <target> LABEL unit|db|e2e SOURCES ... [LIBS ...])
#
# Unit tests are registered case by case (gtest_discover_tests) so ctest reports each one.
# `db` and `e2e` tests run as one process per binary: their fixture starts a throwaway
# PostgreSQL cluster once per binary, not once per test case.
include(GoogleTest)

function(bb_test)
  cmake_parse_arguments(T "" "NAME;LABEL;TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_LABEL MATCHES "^(unit|db|e2e)$")
    message(FATAL_ERROR "bb_test(${T_NAME}): LABEL must be unit, db or e2e, not '${T_LABEL}'")
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  if(T_LABEL STREQUAL "unit")
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gmock GTest::gtest_main)
  else()
    # tests/support/db_test_main.cpp: one throwaway PostgreSQL cluster per binary.
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} bb_db_test_main bb_test_support
                                            GTest::gmock GTest::gtest)
  endif()
  target_compile_definitions(${T_NAME} PRIVATE BB_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  if(T_LABEL STREQUAL "unit")
    gtest_discover_tests(${T_NAME} TEST_PREFIX "${T_NAME}." PROPERTIES LABELS unit TIMEOUT ${T_TIMEOUT}
                         DISCOVERY_TIMEOUT 30)
  else()
    add_test(NAME ${T_NAME} COMMAND ${T_NAME})
    set_tests_properties(${T_NAME} PROPERTIES LABELS ${T_LABEL} TIMEOUT ${T_TIMEOUT})
  endif()
endfunction()
