# End-to-end tests of `mlacheck diff`, `mlacheck merge` and `run --out` through the executable:
# exit statuses and messages, which the library tests cannot see. The fixtures are the committed
# reports of reports/tests/data.
set(_data ${PROJECT_SOURCE_DIR}/reports/tests/data)
set(_work ${CMAKE_CURRENT_BINARY_DIR}/report_commands)

# Passes when `mlacheck ARGN` exits with `status` and its output has a line matching `pattern`
# (a grep regex without single quotes; ARGN without semicolons, which CMake splits on).
function(mlacheck_cli_test name status pattern)
  add_test(NAME ${name}
           COMMAND sh -c "out=$(\"$@\" 2>&1); rc=$?; printf '%s\\n' \"$out\"; [ $rc -eq ${status} ] && printf '%s\\n' \"$out\" | grep -q -e '${pattern}'"
                   sh $<TARGET_FILE:mlacheck> ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED report_commands_work)
endfunction()

# A scratch folder with a report cut mid-row, as a killed run would leave it.
add_test(NAME cli.report_commands.setup
         COMMAND sh -c "rm -rf '${_work}' && mkdir -p '${_work}' && head -c 900 '${_data}/base.csv' > '${_work}/torn.csv'")
set_tests_properties(cli.report_commands.setup PROPERTIES FIXTURES_SETUP report_commands_work)

mlacheck_cli_test(cli.diff.same_report 0 "^0 regressed cases of 5 in both reports" diff ${_data}/base.csv ${_data}/base.csv)
mlacheck_cli_test(cli.diff.regression 1 "^2 regressed cases of 4 in both reports" diff ${_data}/base.csv ${_data}/regressed.csv)
mlacheck_cli_test(cli.diff.looser_factor 1 "^1 regressed cases of 4" diff --factor 3 ${_data}/base.csv ${_data}/regressed.csv)
mlacheck_cli_test(cli.diff.missing_file 2 "cannot read ${_work}/absent.csv" diff ${_data}/base.csv ${_work}/absent.csv)
mlacheck_cli_test(cli.diff.torn_file 2 "torn.csv:2: the last row has no line end" diff ${_data}/base.csv ${_work}/torn.csv)
mlacheck_cli_test(cli.merge.duplicate_ids 2
                  "duplicate id .dsv3.decode.0.split_kv. in ${_data}/base.csv:2 and ${_data}/regressed.csv:2"
                  merge ${_work}/merged.csv ${_data}/base.csv ${_data}/regressed.csv)
mlacheck_cli_test(cli.merge.one_shard 0 "merged 5 cases from 1 reports" merge ${_work}/merged.csv ${_data}/base.csv)
mlacheck_cli_test(cli.run.out_missing_folder 2 "output folder ${_work}/absent does not exist"
                  run --case mla_decode:name=cli-out --out ${_work}/absent)
# One small case (SKIPPED without a GPU): all three reports appear.
add_test(NAME cli.run.out_writes_three_reports
         COMMAND sh -c "\"$0\" run --case mla_decode:name=cli-out --out '${_work}' && test -s '${_work}/report.csv' && test -s '${_work}/junit.xml' && test -s '${_work}/report.html'"
                 $<TARGET_FILE:mlacheck>)
set_tests_properties(cli.run.out_writes_three_reports PROPERTIES FIXTURES_REQUIRED report_commands_work)
