# End-to-end tests of the mlacheck executable's commands: exit statuses and messages, which the
# library tests cannot see. The fixtures are the committed reports of reports/tests/data.
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

# Passes when the shell script `script`, run with the mlacheck executable as $0, exits 0: for the
# checks that need more than one command or look at the files a command left.
function(mlacheck_cli_script_test name script)
  add_test(NAME ${name} COMMAND sh -c "${script}" $<TARGET_FILE:mlacheck>)
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED report_commands_work)
endfunction()

# A scratch folder with a report cut mid-row, as a killed run would leave it, and a report that
# lacks the last case of base.csv.
add_test(NAME cli.report_commands.setup
         COMMAND sh -c "rm -rf '${_work}' && mkdir -p '${_work}' && head -c 1000 '${_data}/base.csv' > '${_work}/torn.csv' && head -n 5 '${_data}/base.csv' > '${_work}/subset.csv' && cp '${_data}/base.csv' '${_work}/shard.csv'")
set_tests_properties(cli.report_commands.setup PROPERTIES FIXTURES_SETUP report_commands_work)

mlacheck_cli_test(cli.diff.same_report 0 "^0 regressed cases: 0 of 5 in both reports, 0 missing" diff ${_data}/base.csv ${_data}/base.csv)
mlacheck_cli_test(cli.diff.regression 1 "^3 regressed cases: 2 of 4 in both reports, 1 missing from the new report"
                  diff ${_data}/base.csv ${_data}/regressed.csv)
mlacheck_cli_test(cli.diff.looser_factor 1 "^2 regressed cases: 1 of 4" diff --factor 3 ${_data}/base.csv ${_data}/regressed.csv)
# A case that stopped running is a regression, even when every other case is unchanged.
mlacheck_cli_test(cli.diff.missing_case 1 "^1 regressed cases: 0 of 4 in both reports, 1 missing from the new report"
                  diff ${_data}/base.csv ${_work}/subset.csv)
mlacheck_cli_test(cli.diff.missing_file 2 "cannot read ${_work}/absent.csv" diff ${_data}/base.csv ${_work}/absent.csv)
mlacheck_cli_test(cli.diff.torn_file 2 "torn.csv:2: the last row has no line end" diff ${_data}/base.csv ${_work}/torn.csv)
mlacheck_cli_test(cli.merge.duplicate_ids 2
                  "duplicate id .dsv3.decode.0.split_kv. in ${_data}/base.csv:2 and ${_data}/regressed.csv:2"
                  merge --out ${_work}/never-written.csv ${_data}/base.csv ${_data}/regressed.csv)
mlacheck_cli_test(cli.merge.one_shard 0 "merged 5 cases from 1 reports" merge --out ${_work}/merged.csv ${_data}/base.csv)
# The output is named with --out only, and never an input: the old `merge out.csv in.csv` order,
# typed the wrong way round, overwrote a shard.
mlacheck_cli_test(cli.merge.output_needs_out 2 "--out is required" merge ${_work}/merged.csv ${_data}/base.csv)
mlacheck_cli_script_test(cli.merge.output_is_an_input
                         "before=$(cksum < '${_work}/shard.csv'); out=$(\"$0\" merge --out '${_work}/./shard.csv' '${_data}/regressed.csv' '${_work}/shard.csv' 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'is also an input' && [ \"$(cksum < '${_work}/shard.csv')\" = \"$before\" ]")

# run --out creates its folder; one small case (SKIPPED without a GPU) writes all three reports and
# says where report.html is.
mlacheck_cli_test(cli.run.out_creates_the_folder 0 "^report: ${_work}/created/deeper/report.html"
                  run --case mla_decode:name=cli-out --out ${_work}/created/deeper)
mlacheck_cli_script_test(cli.run.out_writes_three_reports
                         "\"$0\" run --case mla_decode:name=cli-out --out '${_work}/three' && test -s '${_work}/three/report.csv' && test -s '${_work}/three/junit.xml' && test -s '${_work}/three/report.html'")
# A second run into the same folder is refused (the first run's report is untouched) unless
# --resume or --force says what to do with it.
mlacheck_cli_script_test(cli.run.refuses_to_truncate_a_report
                         "m=$0; d='${_work}/twice'; \"$m\" run --case mla_decode:name=one --out \"$d\" || exit 1; before=$(cksum < \"$d/report.csv\"); out=$(\"$m\" run --case mla_decode:name=two --out \"$d\" 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'already holds a run.s report: --resume finishes that run, --force replaces it' && [ \"$(cksum < \"$d/report.csv\")\" = \"$before\" ] && \"$m\" run --case mla_decode:name=two --out \"$d\" --force && grep -q '^two,' \"$d/report.csv\"")
# A --case replay writes no report unless asked (it must not collide with the main run's folder).
mlacheck_cli_script_test(cli.run.case_replay_writes_no_default_report
                         "mkdir -p '${_work}/replay' && cd '${_work}/replay' && \"$0\" run --case mla_decode:name=r && test ! -e mlacheck-report")

# A device probe that crashes is a setup error (exit 2), never a run of SKIPPED rows.
mlacheck_cli_script_test(cli.run.device_probe_crash_is_an_error
                         "out=$(MLACHECK_TEST_CRASH_DEVICE_PROBE=1 \"$0\" run --case mla_decode:name=p --out '${_work}/probe' 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'the device probe crashed: signal 6' && test ! -e '${_work}/probe/report.csv'")

# Exit statuses: 2 for every usage error, CLI11's own included; 0 for --help.
mlacheck_cli_test(cli.usage.unknown_option 2 "--no-such-option" run --no-such-option)
mlacheck_cli_test(cli.usage.unknown_subcommand 2 "subcommand is required" frobnicate)
mlacheck_cli_test(cli.usage.no_subcommand 2 "subcommand")
mlacheck_cli_test(cli.usage.missing_argument 2 "new is required" diff ${_data}/base.csv)
mlacheck_cli_test(cli.usage.bad_value 2 "--seed" run --seed many)
mlacheck_cli_test(cli.usage.help 0 "Usage:" run --help)
mlacheck_cli_test(cli.usage.parse_only 0 "" --parse-only run --seed 3 --shard 0/2)

# Data files from any working directory: the scenario table and the known-bug list are found from
# the source tree when the working directory has no scenarios/ folder.
add_test(NAME cli.scenarios.finds_its_tables_from_any_directory
         COMMAND sh -c "cd / && out=$(\"$0\" scenarios --list 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 0 ] && echo \"$out\" | grep -q 'scenarios/upstream.csv; known bugs from .*scenarios/known_bugs.csv' && echo \"$out\" | grep -q '^s4_deepseek_v3_tp8_qlen6 .*caught by comparison'"
                 $<TARGET_FILE:mlacheck>)

# `mlacheck run` without --out writes mlacheck-report/ in the working directory and says where
# report.html is (one case: shard 0 of 1000).
mlacheck_cli_script_test(cli.run.writes_reports_by_default
                         "rm -rf '${_work}/default' && mkdir -p '${_work}/default' && cd '${_work}/default' && out=$(\"$0\" run --shard 0/1000 --property-cases 0 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 0 ] && echo \"$out\" | grep -q '^report: ${_work}/default/mlacheck-report/report.html' && test -s mlacheck-report/report.csv && test -s mlacheck-report/junit.xml")
# Without any GPU the run stays green (SKIPPED is no failure) but says so plainly. Skipped (77)
# where a GPU is present.
add_test(NAME cli.run.without_a_gpu_says_nothing_was_checked
         COMMAND sh -c "\"$0\" devices | grep -q '^devices: none' || exit 77; out=$(\"$0\" run --case mla_decode:name=nogpu 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 0 ] && echo \"$out\" | grep -q '^NOTHING WAS CHECKED ON A DEVICE: no GPU (.*); all 1 device cases are SKIPPED$'"
                 $<TARGET_FILE:mlacheck>)
set_tests_properties(cli.run.without_a_gpu_says_nothing_was_checked PROPERTIES SKIP_RETURN_CODE 77)
# --require-device: without a GPU the run is a setup error (exit 2) that writes no report; with one
# it runs as without the flag.
mlacheck_cli_script_test(cli.run.require_device_without_a_gpu_is_an_error
                         "d='${_work}/required'; rm -rf \"$d\"; if \"$0\" devices | grep -q '^devices: none'; then out=$(\"$0\" run --require-device --case mla_decode:name=req --out \"$d\" 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q -e '--require-device: no device to run the backend on: ' && test ! -e \"$d/report.csv\"; else \"$0\" run --require-device --case mla_decode:name=req --out \"$d\" && grep -q '^req,' \"$d/report.csv\"; fi")
mlacheck_cli_test(cli.version 0 "^mlacheck ${PROJECT_VERSION}$" --version)

# --resume keeps rows only of this plan (by the plan fingerprint beside report.csv): another --seed
# or --case, under the same id or another, is refused (exit 2), not mixed into the report.
mlacheck_cli_script_test(cli.run.resume_refuses_another_case_under_an_id
                         "m=$0; d='${_work}/mixed'; rm -rf \"$d\"; \"$m\" run --case 'mla_decode:name=r1;heads=16' --out \"$d\" || exit 1; out=$(\"$m\" run --case 'mla_decode:name=r1;heads=32' --out \"$d\" --resume 2>&1); rc=$?; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q \"report.csv is the report of another plan\"")

# `mlacheck plan --coverage`: the default plan covers every allowed three-way combination of the
# production factors (plan/production_factors.csv) and says so on its last line; a four-way
# question it was not built for lists what it misses and exits 1; the plan lists the cover-N cases.
add_test(NAME cli.plan.coverage_uncovered_zero
         COMMAND sh -c "out=$(\"$0\" plan --coverage 2>&1); rc=$?; printf '%s\\n' \"$out\" | tail -3; [ $rc -eq 0 ] && [ \"$(printf '%s\\n' \"$out\" | tail -1)\" = 'uncovered: 0' ] && printf '%s\\n' \"$out\" | grep -q '^heads=8 q_dtype=bf16 kv_dtype=fp8_e4m3fn  '"
                 $<TARGET_FILE:mlacheck>)
mlacheck_cli_test(cli.plan.coverage_lists_uncovered 1 "^uncovered: heads=" plan --coverage --strength 4)
mlacheck_cli_test(cli.plan.lists_cover_cases 0 "^cover-0 mla_decode:name=cover-0;" plan)
mlacheck_cli_test(cli.plan.bad_factor_table 2 "does not exist" plan --factors /nonexistent.csv)

# Tiers and plan files: a tier builds; an unknown tier and a malformed plan line are exit-2 errors
# naming what and where.
mlacheck_cli_test(cli.plan.tier_smoke 0 "^cases: [0-9]*; oracle work" plan --tier smoke)
mlacheck_cli_test(cli.plan.tier_smoke_covers_pairs 0 "^uncovered: 0$" plan --tier smoke --coverage --strength 2)
mlacheck_cli_test(cli.plan.unknown_tier 2 "--tier weekly is not one of smoke, pre-merge, nightly" plan --tier weekly)
mlacheck_cli_test(cli.plan.tier_and_plan 2 "--tier and --plan both" run --tier smoke --plan x.plan)
add_test(NAME cli.plan.malformed_plan_line
         COMMAND sh -c "d=$(mktemp -d) && printf 'scenarios\\nproperties size=lots\\n' > $d/bad.plan && out=$(\"$0\" run --plan $d/bad.plan --out $d/r 2>&1); rc=$?; rm -rf $d; echo \"$out\"; [ $rc -eq 2 ] && echo \"$out\" | grep -q 'bad.plan:2: size=lots is not a number'"
                 $<TARGET_FILE:mlacheck>)
