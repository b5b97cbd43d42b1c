#include "cli/sensitivity_section.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "cli/device_preflight.hpp"
#include "cli/exit_status.hpp"
#include "cli/progress.hpp"
#include "cli/run_command.hpp"
#include "cli/sensitivity_run.hpp"
#include "plan/case_settle.hpp"
#include "plan/data_files.hpp"

namespace mlacheck::cli {

namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

int default_jobs(int seeds) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return std::clamp(static_cast<int>(cores / 2), 1, seeds);
}

}  // namespace

std::vector<Fault> chosen_precision_faults(const std::vector<std::string>& names) {
  if (names.empty()) return {std::begin(kPrecisionFaults), std::end(kPrecisionFaults)};
  std::vector<Fault> out;
  for (const std::string& n : names) {
    const auto f = parse_fault(n);
    if (!f || std::find(std::begin(kPrecisionFaults), std::end(kPrecisionFaults), *f) == std::end(kPrecisionFaults)) {
      std::string known;
      for (Fault p : kPrecisionFaults) known += (known.empty() ? "" : ", ") + std::string(to_string(p));
      throw std::invalid_argument("--fault " + n + ": not a precision fault (one of " + known + ")");
    }
    if (std::find(out.begin(), out.end(), *f) == out.end()) out.push_back(*f);
  }
  return out;
}

int run_sensitivity_section(const ScenariosOptions& options) {
  if (options.backend != "hip") {
    throw std::invalid_argument("--sensitivity with --backend " + options.backend +
                                ": the precision faults are switches inside mlacheck's own kernels");
  }
  SensitivityOptions run;
  run.faults = chosen_precision_faults(options.faults);
  for (int s = 1; s <= options.seeds; ++s) run.seeds.push_back(static_cast<std::uint64_t>(s));
  run.scenarios_file = scenario_table_path(options.file);
  run.known_bugs = load_known_bug_table(options.known_bugs);
  run.timeout_base_s = options.timeout_base_s;
  run.jobs = options.jobs.value_or(default_jobs(options.seeds));
  const std::filesystem::path out_dir = options.out_dir.empty() ? kDefaultReportDir : options.out_dir;

  const DevicePlan devices = preflight_devices(options.device.value_or(0));
  if (devices.devices.empty()) {
    std::printf("device: none: %s\n", devices.no_gpu_reason.c_str());
    std::printf("NOTHING WAS CHECKED ON A DEVICE: no GPU (%s); the sensitivity matrix did not run\n",
                devices.no_gpu_reason.c_str());
    return kExitOk;
  }
  run.device = devices.devices.front();
  const std::size_t cases = sensitivity_cases(1, run.property_cases, run.scenarios_file).size();
  std::printf("device: GPU %d %s\n", run.device, devices.names.front().c_str());
  std::printf(
      "sensitivity: %zu precision faults + clean x %d seeds x %zu mla_decode cases of the main job's plan "
      "(seed 1; scenarios from %s); the cases isolated in %d processes at once\n",
      run.faults.size(), options.seeds, cases, run.scenarios_file.empty() ? "(none)" : run.scenarios_file.c_str(),
      run.jobs);
  std::fflush(stdout);

  const auto start = std::chrono::steady_clock::now();
  std::size_t seeds_done = 0;
  // Rows come back a seed's process at a time. Failures so far: clean rows that failed or were lost.
  std::size_t rows_total = 0;
  for (std::uint64_t seed : run.seeds) {
    rows_total += sensitivity_cases(seed, run.property_cases, run.scenarios_file).size() * (1 + run.faults.size());
  }
  Progress progress(rows_total, stderr, stderr_is_terminal());
  const std::vector<SensitivityRun> runs =
      run_sensitivity(run, [&](std::uint64_t seed, const std::vector<SensitivityRun>& of_seed) {
        ++seeds_done;
        std::string lost;
        for (const SensitivityRun& r : of_seed) {
          if (!r.lost.empty()) lost = r.lost;
          for (std::size_t i = 0; i < r.cases; ++i) {
            const bool failed = i >= r.rows.size() || is_failure(r.rows[i].state);
            progress.case_done(!r.fault && failed);
          }
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("seed %llu done (%zu/%d, %.0f s)%s%s\n", static_cast<unsigned long long>(seed), seeds_done,
                    options.seeds, s, lost.empty() ? "" : ": ", lost.c_str());
        std::fflush(stdout);
      });

  progress.finish();
  const SensitivityMatrix m = summarise_sensitivity(runs, run.faults, run.seeds);
  std::printf("\n");
  print_sensitivity_matrix(stdout, m);
  std::filesystem::create_directories(out_dir);
  write_file(out_dir / "sensitivity.csv", sensitivity_summary_csv(m));
  write_file(out_dir / "sensitivity_seeds.csv", sensitivity_seeds_csv(m));
  std::printf("wrote %s and %s\n", (out_dir / "sensitivity.csv").string().c_str(),
              (out_dir / "sensitivity_seeds.csv").string().c_str());

  const std::vector<std::string> problems = sensitivity_problems(m);
  for (const std::string& p : problems) std::printf("PROBLEM: %s\n", p.c_str());
  std::printf("%s: %zu faults x %d seeds, %zu problems\n", problems.empty() ? "ok" : "NOT OK", run.faults.size(),
              options.seeds, problems.size());
  return problems.empty() ? kExitOk : kExitCaseFailed;
}

}  // namespace mlacheck::cli
