#include "cli/bench_harness_section.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "bench/oracle_targets.hpp"
#include "cli/bench_sitting.hpp"
#include "cli/option_checks.hpp"
#include "run/case_prefetch.hpp"
#include "harness/oracle_self_check.hpp"
#include "plan/data_files.hpp"
#include "plan/run_plan.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck::cli {

namespace {

// Issue 29: the main job (`mlacheck run`, default plan) took 207 cases in 32 s on a 16-core H100
// host; the target is ten times that rate. The sitting: 100,000 property cases within 10 minutes.
constexpr double kMainJobTodayCasesPerS = 207.0 / 32.0;
constexpr double kMainJobTargetCasesPerS = 10.0 * kMainJobTodayCasesPerS;
constexpr double kSittingCases = 100000.0;
constexpr double kSittingTargetMin = 10.0;

const char* verdict(bool met) { return met ? "met" : "missed"; }

struct Throughput {
  std::size_t cases = 0;
  double seconds = 0.0;
  double reference_s = 0.0, device_s = 0.0;  // the rows' oracle and device times, summed
  double per_second() const { return seconds > 0.0 ? static_cast<double>(cases) / seconds : 0.0; }
};

// The plan's cases as a run's worker runs them: oracle self-checks on this thread, device cases
// through run_cases with the oracle of the next ones prepared on other threads.
Throughput run_plan_cases(const std::vector<RunCase>& plan, Backend* backend, const std::string& reason) {
  std::vector<CaseProblem> device_cases;
  const auto start = std::chrono::steady_clock::now();
  for (const RunCase& c : plan) {
    if (c.kind == RunCase::Kind::oracle_self_check) {
      run_oracle_self_check(parse_mla_decode(c.repro));
    } else {
      device_cases.push_back(parse_case(c.repro));
    }
  }
  Throughput t;
  run_cases(device_cases, backend, reason, {}, PrefetchOptions{}, [&t](std::size_t, const CaseResult& row) {
    t.reference_s += row.reference_ms / 1e3;
    t.device_s += row.device_ms / 1e3;
  });
  t.cases = plan.size();
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return t;
}

void print_oracle_lines(Backend* backend, bool quick, const HarnessSectionOptions& options, int threads) {
  for (const MlaDecodeProblem& p : oracle_target_problems(quick)) {
    // As the main job measures it for this backend: only the rounding buckets it is judged on.
    const PBucketKinds buckets = p_buckets_judged(p, backend != nullptr ? backend->p_rounding() : PRoundingPoint::undeclared);
    const OracleRate r = measure_oracle_rate(p, threads, options.oracle_runs, buckets);
    std::printf("oracle %s: %.2f GFLOP/s, dgemm %.2f GFLOP/s on %d threads: %.3f of dgemm; target >= %.3f: %s\n",
                r.name.c_str(), r.gflops, r.dgemm_gflops, r.threads, r.fraction(), kOracleFractionTarget,
                verdict(r.fraction() >= kOracleFractionTarget));
    std::fflush(stdout);
  }
}

// Where the target is a GPU host's and the backend is not on one, the figure is this machine's.
std::string device_verdict(bool on_device, bool met) {
  return on_device ? verdict(met) : "device part not measured (host plugin: this machine's CPU figure)";
}

}  // namespace

void add_harness_section_options(CLI::App* cmd, HarnessSectionOptions& options) {
  cmd->add_option("--harness-cases", options.main_job_cases, "Harness section: the default plan's first N cases (0: all)")
      ->capture_default_str()
      ->check(whole_number(0, kMaxPropertyCases));
  cmd->add_option("--sitting-cases", options.sitting_cases,
                  "Harness section: property cases of the sitting, a real `mlacheck run` (100000 judges the target)")
      ->capture_default_str()
      ->check(whole_number(1, kMaxPropertyCases));
  cmd->add_option("--sitting-budget", options.sitting_budget,
                  "Harness section: the sitting's per-case oracle work budget (a plan file's properties budget=)")
      ->capture_default_str()
      ->check(finite_number(0.0, 1e15, true));
  cmd->add_option("--oracle-threads", options.oracle_threads,
                  "Harness section: threads of the oracle and of dgemm (0: the host's)")
      ->capture_default_str()
      ->check(whole_number(0, 1024));
  cmd->add_option("--oracle-runs", options.oracle_runs, "Harness section: timings per oracle problem (median)")
      ->capture_default_str()
      ->check(whole_number(1, 100000));
}

void run_harness_section(Backend* backend, const std::string& unavailable_reason, bool on_device, bool quick,
                         const HarnessSectionOptions& options, const std::string& backend_spec,
                         std::optional<int> device) {
  const unsigned host_threads = std::max(1u, std::thread::hardware_concurrency());
  const int threads = options.oracle_threads > 0 ? options.oracle_threads : static_cast<int>(host_threads);
  std::printf("\nharness targets (issue 29), measured in this run; %u host threads\n", host_threads);
  print_oracle_lines(backend, quick, options, threads);

  RunPlanOptions main_job;  // `mlacheck run`'s default plan
  main_job.scenarios_file = scenario_table_path("");
  std::vector<RunCase> plan = build_run_plan(main_job);
  if (options.main_job_cases > 0 && static_cast<std::size_t>(options.main_job_cases) < plan.size()) {
    plan.resize(static_cast<std::size_t>(options.main_job_cases));
  }
  const Throughput job = run_plan_cases(plan, backend, unavailable_reason);
  std::printf("main job: %zu cases in %.1f s: %.2f cases/s (default plan, %zu cases ahead; oracle %.1f s, device %.3f s "
              "summed over the rows); target >= %.1f cases/s on a 16-core GPU host: %s\n",
              job.cases, job.seconds, job.per_second(), PrefetchOptions{}.lookahead, job.reference_s, job.device_s, kMainJobTargetCasesPerS,
              device_verdict(on_device, job.per_second() >= kMainJobTargetCasesPerS).c_str());
  std::fflush(stdout);

  // The sitting: a real `mlacheck run` of property cases (cli/bench_sitting.hpp), not a projection.
  SittingOptions sitting_options;
  sitting_options.cases = options.sitting_cases;
  sitting_options.work_budget = options.sitting_budget;
  sitting_options.backend = backend_spec;
  sitting_options.device = device;
  const SittingResult sitting = run_property_sitting(sitting_options);
  std::printf("property sitting: %zu cases in %.1f s through `mlacheck run` (worker processes, costliest first): %.2f "
              "cases/s; %zu passed, %zu failed, %zu errored, %zu skipped, %zu other; work budget %.3g: %zu draws over "
              "it drawn again, %zu left out\n",
              sitting.rows, sitting.seconds, sitting.per_second(), sitting.passed, sitting.failed, sitting.errored,
              sitting.skipped, sitting.other, options.sitting_budget, sitting.budget_redrawn, sitting.budget_left_out);
  if (options.sitting_cases < kSittingCases) {
    std::printf("property sitting target: %.0f cases in <= %.0f min on one GPU host: not judged (this sitting had %d "
                "cases; --sitting-cases %.0f measures the target's)\n",
                kSittingCases, kSittingTargetMin, options.sitting_cases, kSittingCases);
  } else {
    std::printf("property sitting target: %.0f cases in <= %.0f min on one GPU host: %s\n", kSittingCases,
                kSittingTargetMin,
                device_verdict(on_device, sitting.seconds <= kSittingTargetMin * 60.0 && sitting.failed == 0 &&
                                              sitting.errored == 0).c_str());
  }
  std::fflush(stdout);
}

}  // namespace mlacheck::cli
