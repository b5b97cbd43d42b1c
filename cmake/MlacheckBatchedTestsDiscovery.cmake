# Lists a test executable's GoogleTest cases and writes the ctest file of its batches and cases
# (cmake/MlacheckBatchedTests.cmake says why). Included by the file ctest reads at start; also run
# directly by tests/batching's tests: cmake -D<each argument>=... -P MlacheckBatchedTestsDiscovery.cmake.

# A ctest name or filter entry as a bracket argument that no name can close early.
function(_mlacheck_bracket text out_var)
  set(equals "=")
  while(text MATCHES "]${equals}]")
    string(APPEND equals "=")
  endwhile()
  set(${out_var} "[${equals}[${text}]${equals}]" PARENT_SCOPE)
endfunction()

function(mlacheck_write_batched_tests)
  cmake_parse_arguments(arg ""
    "TARGET;EXECUTABLE;TOOL;RESULTS_DIR;WORKING_DIR;CASES_PER_BATCH;BATCH_TIMEOUT;DISCOVERY_TIMEOUT;PROPERTIES;OUTPUT" ""
    ${ARGN})
  execute_process(COMMAND "${arg_EXECUTABLE}" --gtest_list_tests
                  WORKING_DIRECTORY "${arg_WORKING_DIR}"
                  TIMEOUT ${arg_DISCOVERY_TIMEOUT}
                  OUTPUT_VARIABLE listing ERROR_VARIABLE listing_errors RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${arg_TARGET}: '${arg_EXECUTABLE} --gtest_list_tests' failed (${status}):\n"
                        "${listing}${listing_errors}")
  endif()

  # GoogleTest lists "Suite." lines, then "  Case" lines; either may end in "  # GetParam() = ..."
  # (or TypeParam), which is a description, not part of the name.
  string(REPLACE ";" "\\;" listing "${listing}")
  string(REPLACE "\n" ";" lines "${listing}")
  set(cases "")
  set(suite "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^Running main\\(\\) from" OR line STREQUAL "")
      continue()
    endif()
    string(REGEX REPLACE "  +#.*$" "" name "${line}")
    if(name MATCHES "^  ")
      string(STRIP "${name}" case_name)
      if(suite STREQUAL "")
        message(FATAL_ERROR "${arg_TARGET}: case '${case_name}' listed before any suite")
      endif()
      set(full "${suite}.${case_name}")
      if(NOT full MATCHES "^[A-Za-z0-9_/.-]+$")
        message(FATAL_ERROR "${arg_TARGET}: case '${full}' has characters outside [A-Za-z0-9_/.-]; "
                            "name its parameters with letters, digits and '_'")
      endif()
      if(NOT full MATCHES "(^|[./])DISABLED_")
        list(APPEND cases "${full}")
      endif()
    else()
      string(REGEX REPLACE "\\.$" "" suite "${name}")
    endif()
  endforeach()

  string(REPLACE "|" ";" properties "${arg_PROPERTIES}")
  set(quoted_properties "")
  foreach(word IN LISTS properties)
    _mlacheck_bracket("${word}" word)
    string(APPEND quoted_properties " ${word}")
  endforeach()
  _mlacheck_bracket("${arg_EXECUTABLE}" executable)
  _mlacheck_bracket("${arg_TOOL}" tool)
  _mlacheck_bracket("${arg_WORKING_DIR}" working_dir)
  math(EXPR watchdog_margin "${arg_BATCH_TIMEOUT} + 60")

  list(LENGTH cases count)
  set(script "# ${count} cases of ${arg_TARGET}, ${arg_CASES_PER_BATCH} per batch (cmake/MlacheckBatchedTests.cmake)\n")
  set(index 0)
  while(index LESS count)
    math(EXPR batch "${index} / ${arg_CASES_PER_BATCH}")
    math(EXPR last "${index} + ${arg_CASES_PER_BATCH} - 1")
    if(last GREATER_EQUAL count)
      math(EXPR last "${count} - 1")
    endif()
    set(padded "00${batch}")  # three digits at least, so batches sort in order
    string(LENGTH "${padded}" width)
    math(EXPR start "${width} - 3")
    string(SUBSTRING "${padded}" ${start} -1 padded)
    set(batch_name "${arg_TARGET}.batch.${padded}")
    _mlacheck_bracket("${batch_name}" quoted_batch)
    _mlacheck_bracket("${arg_RESULTS_DIR}/${padded}" results)
    set(filter "")
    foreach(i RANGE ${index} ${last})
      list(GET cases ${i} full)
      if(filter STREQUAL "")
        set(filter "${full}")
      else()
        string(APPEND filter ":${full}")
      endif()
    endforeach()
    _mlacheck_bracket("--gtest_filter=${filter}" quoted_filter)
    string(APPEND script
      "add_test(${quoted_batch} ${tool} batch ${results} ${arg_BATCH_TIMEOUT} -- ${executable} ${quoted_filter})\n"
      "set_tests_properties(${quoted_batch} PROPERTIES FIXTURES_SETUP ${quoted_batch} TIMEOUT ${watchdog_margin} "
      "WORKING_DIRECTORY ${working_dir}${quoted_properties})\n")
    foreach(i RANGE ${index} ${last})
      list(GET cases ${i} full)
      _mlacheck_bracket("${full}" quoted_case)
      string(APPEND script
        "add_test(${quoted_case} ${tool} case ${results} ${quoted_case} -- ${executable})\n"
        "set_tests_properties(${quoted_case} PROPERTIES FIXTURES_REQUIRED ${quoted_batch} "
        "SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==] WORKING_DIRECTORY ${working_dir}${quoted_properties})\n")
    endforeach()
    math(EXPR index "${last} + 1")
  endwhile()
  file(WRITE "${arg_OUTPUT}" "${script}")
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  mlacheck_write_batched_tests(
    TARGET "${TARGET}" EXECUTABLE "${EXECUTABLE}" TOOL "${TOOL}" RESULTS_DIR "${RESULTS_DIR}"
    WORKING_DIR "${WORKING_DIR}" CASES_PER_BATCH "${CASES_PER_BATCH}" BATCH_TIMEOUT "${BATCH_TIMEOUT}"
    DISCOVERY_TIMEOUT "${DISCOVERY_TIMEOUT}" PROPERTIES "${PROPERTIES}" OUTPUT "${OUTPUT}")
endif()
