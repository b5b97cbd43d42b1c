# Device test executables run their cases in batches: one process (one GPU context) per batch of
# cases, while every case stays a ctest test of its own, selectable by name and reported on its own.
#
# A process's GPU context costs about 0.2 s to create and the driver creates them one at a time, so
# a process per case bounds a suite of ~2,000 device cases by context creation alone. Here each
# batch is a fixture-setup test ("<target>.batch.<k>") that runs its cases in one process, leaving a
# result file per case (tests/batching); each case's test ("Suite.Case", FIXTURES_REQUIRED its batch)
# reports that file, and runs the case alone in a fresh process when the batch did not finish it
# (a crash or hang in the batch costs exactly the case that caused it). `ctest -R Suite.Case` pulls
# in the case's batch, so a single case still runs on its own command line.
#
#   mlacheck_add_batched_tests(<target> [CASES_PER_BATCH n] [BATCH_TIMEOUT s] [PROPERTIES ...])
#
# Tests are listed when ctest runs (like gtest_discover_tests' PRE_TEST mode: builds are carried to
# GPU hosts to run). PROPERTIES apply to the batches and to the cases (labels, RESOURCE_GROUPS: a
# case run alone needs its GPU slot too). The executable's main() must install the case-result
# listener: link mlacheck_gtest_main, or call mlacheck::batching::install_case_result_listener().
set(MLACHECK_BATCHED_TESTS_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/MlacheckBatchedTestsDiscovery.cmake")

function(mlacheck_add_batched_tests target)
  cmake_parse_arguments(arg "" "CASES_PER_BATCH;BATCH_TIMEOUT;DISCOVERY_TIMEOUT" "PROPERTIES" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mlacheck_add_batched_tests(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT arg_CASES_PER_BATCH)
    set(arg_CASES_PER_BATCH 40)
  endif()
  if(NOT arg_BATCH_TIMEOUT)
    set(arg_BATCH_TIMEOUT 1200)
  endif()
  if(NOT arg_DISCOVERY_TIMEOUT)
    set(arg_DISCOVERY_TIMEOUT 60)
  endif()
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_batched_include.cmake")
  set(tests_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_batched_tests.cmake")
  set(results_dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_batches")
  # Properties travel as one bracket-quoted list; ';' inside a value (none today) would split it.
  string(REPLACE ";" "|" properties "${arg_PROPERTIES}")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"set(executable [==[$<TARGET_FILE:${target}>]==])
if(NOT EXISTS \"\${executable}\")
  add_test([==[${target}_NOT_BUILT]==] [==[${target}_NOT_BUILT]==])
else()
  if(NOT EXISTS [==[${tests_file}]==] OR \"\${executable}\" IS_NEWER_THAN [==[${tests_file}]==]
     OR [==[${MLACHECK_BATCHED_TESTS_SCRIPT}]==] IS_NEWER_THAN [==[${tests_file}]==])
    include([==[${MLACHECK_BATCHED_TESTS_SCRIPT}]==])
    mlacheck_write_batched_tests(
      TARGET [==[${target}]==]
      EXECUTABLE \"\${executable}\"
      TOOL [==[$<TARGET_FILE:mlacheck_test_batch>]==]
      RESULTS_DIR [==[${results_dir}]==]
      WORKING_DIR [==[${CMAKE_CURRENT_BINARY_DIR}]==]
      CASES_PER_BATCH ${arg_CASES_PER_BATCH}
      BATCH_TIMEOUT ${arg_BATCH_TIMEOUT}
      DISCOVERY_TIMEOUT ${arg_DISCOVERY_TIMEOUT}
      PROPERTIES [==[${properties}]==]
      OUTPUT [==[${tests_file}]==])
  endif()
  include([==[${tests_file}]==])
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
  add_dependencies(${target} mlacheck_test_batch)
endfunction()
