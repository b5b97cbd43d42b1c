# Bad input at the edge (issue 37): every value is refused with exit status 2 and a message naming
# the option, or the file and line, before anything runs or is allocated from it. Uses the
# functions and the scratch fixture of report_commands_tests.cmake.
set(_data ${PROJECT_SOURCE_DIR}/reports/tests/data)
set(_bad ${CMAKE_CURRENT_BINARY_DIR}/input_checks)

# Damaged copies of base.csv: a NaN payload, a negative error, a huge line; and a folder with a
# report but no plan fingerprint (as a run before fingerprints left it).
add_test(NAME cli.input_checks.setup
         COMMAND sh -c "rm -rf '${_bad}' && mkdir -p '${_bad}/old' && sed '2s/,0.009000000000000001,/,nan,/' '${_data}/base.csv' > '${_bad}/nan.csv' && sed '2s/,0.009000000000000001,/,-0.009,/' '${_data}/base.csv' > '${_bad}/negative.csv' && (cat '${_data}/base.csv'; printf '%2000000s\\n' '' | tr ' ' x) > '${_bad}/long_line.csv' && cp '${_data}/base.csv' '${_bad}/old/report.csv' && cp '${_data}/base.csv' '${_bad}/existing.csv'")
set_tests_properties(cli.input_checks.setup PROPERTIES FIXTURES_SETUP input_checks_work)

function(mlacheck_input_test name status pattern)
  mlacheck_cli_test(${name} ${status} "${pattern}" ${ARGN})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED "report_commands_work;input_checks_work")
endfunction()

# Numeric options: NaN and infinities, signs on unsigned options, counts past their maximum.
mlacheck_input_test(cli.input.timeout_nan 2 "--timeout: .nan. is not finite" --parse-only run --timeout nan)
mlacheck_input_test(cli.input.timeout_inf 2 "--timeout: .inf. is not finite" --parse-only run --timeout inf)
mlacheck_input_test(cli.input.timeout_zero 2 "--timeout: .0. is not in (0, 86400]" --parse-only run --timeout 0)
mlacheck_input_test(cli.input.scenarios_timeout_nan 2 "--timeout: .nan. is not finite" --parse-only scenarios --timeout nan)
mlacheck_input_test(cli.input.shrink_timeout_nan 2 "--timeout: .NaN. is not finite"
                    --parse-only shrink --case mla_decode:name=a --timeout NaN)
mlacheck_input_test(cli.input.mutate_timeout_nan 2 "--timeout: .nan. is not finite" --parse-only mutate --timeout nan)
mlacheck_input_test(cli.input.seed_negative 2 "--seed: .-1. is not a whole number" --parse-only run --seed -1)
mlacheck_input_test(cli.input.mutate_seed_negative 2 "--seed: .-1. is not a whole number" --parse-only mutate --seed -1)
mlacheck_input_test(cli.input.lookahead_negative 2 "--lookahead: .-1. is not a whole number in .0, 4096."
                    --parse-only run --lookahead -1)
mlacheck_input_test(cli.input.property_cases_huge 2 "--property-cases: .2147483647. is not in .0, 100000."
                    --parse-only run --property-cases 2147483647)
mlacheck_input_test(cli.input.seeds_huge 2 "--seeds: .2147483647. is not in .1, 1000."
                    --parse-only scenarios --sensitivity --seeds 2147483647)
mlacheck_input_test(cli.input.factor_inf 2 "--factor: .inf. is not finite" diff --factor inf ${_data}/base.csv ${_data}/base.csv)
mlacheck_input_test(cli.input.factor_nan 2 "--factor: .nan. is not finite" diff --factor nan ${_data}/base.csv ${_data}/base.csv)
mlacheck_input_test(cli.input.max_seconds_nan 2 "--max-seconds: .nan. is not finite"
                    --parse-only shrink --case mla_decode:name=a --max-seconds nan)
# The values at the ends of the ranges are accepted.
mlacheck_input_test(cli.input.limits_accepted 0 ""
                    --parse-only run --seed 18446744073709551615 --lookahead 0 --property-cases 100000 --timeout 86400)

# Reports: bounded reading and values checked before use.
mlacheck_input_test(cli.input.diff_dev_zero 2 "cannot read /dev/zero: not a regular file" diff /dev/zero ${_data}/base.csv)
mlacheck_input_test(cli.input.merge_dev_zero 2 "cannot read /dev/zero: not a regular file" merge --out ${_bad}/z.csv /dev/zero)
mlacheck_input_test(cli.input.long_line 2 "long_line.csv:7: a line longer than 1024 KiB" diff ${_data}/base.csv ${_bad}/long_line.csv)
mlacheck_input_test(cli.input.nan_payload 2 "nan.csv:2: column .o_max_abs_err.: .nan. is NaN" diff ${_data}/base.csv ${_bad}/nan.csv)
mlacheck_input_test(cli.input.negative_error 2 "negative.csv:2: column .o_max_abs_err.: .-0.009. is negative"
                    diff ${_bad}/negative.csv ${_data}/base.csv)

# merge --out never replaces an existing file unless --force, and a failed write leaves no .partial.
mlacheck_cli_script_test(cli.input.merge_refuses_an_existing_out
                         "f='${_bad}/existing.csv'; before=$(cksum < \"$f\"); out=$(\"$0\" merge --out \"$f\" '${_data}/regressed.csv' 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q -e '--out .*existing.csv already exists: --force replaces it' && [ \"$(cksum < \"$f\")\" = \"$before\" ] && \"$0\" merge --force --out \"$f\" '${_data}/regressed.csv' && [ \"$(cksum < \"$f\")\" != \"$before\" ]")
mlacheck_cli_script_test(cli.input.merge_failure_leaves_no_partial
                         "d='${_bad}/into_a_folder'; mkdir -p \"$d/report.csv\"; out=$(\"$0\" merge --force --out \"$d/report.csv\" '${_data}/base.csv' 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'cannot write' && test ! -e \"$d/report.csv.partial\"")
set_tests_properties(cli.input.merge_refuses_an_existing_out cli.input.merge_failure_leaves_no_partial
                     PROPERTIES FIXTURES_REQUIRED "report_commands_work;input_checks_work")

# --resume: a report of another plan, or of no recorded plan, is refused; the same plan resumes.
mlacheck_cli_script_test(cli.input.resume_refuses_another_plan
                         "m=$0; d='${_bad}/foreign'; \"$m\" run --case mla_decode:name=mine --out \"$d\" || exit 1; out=$(\"$m\" run --case mla_decode:name=theirs --out \"$d\" --resume 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'report.csv is the report of another plan' && ! grep -q '^theirs,' \"$d/report.csv\" && \"$m\" run --case mla_decode:name=mine --out \"$d\" --resume | grep -q '1 kept from the report being resumed'")
mlacheck_cli_script_test(cli.input.resume_refuses_a_report_without_fingerprint
                         "out=$(\"$0\" run --case mla_decode:name=x --out '${_bad}/old' --resume 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'plan-fingerprint.txt is missing or empty.*--force replaces it'")
set_tests_properties(cli.input.resume_refuses_another_plan cli.input.resume_refuses_a_report_without_fingerprint
                     PROPERTIES FIXTURES_REQUIRED "report_commands_work;input_checks_work")
