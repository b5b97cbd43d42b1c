#include "cli/bench_command.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "bench/decode_roofline.hpp"
#include "cli/backend_description.hpp"
#include "cli/bench_timing_backend.hpp"
#include "cli/option_checks.hpp"
#include "device/hip_backend/decode_path.hpp"
#include "device/backend_factory.hpp"
#include "device/benchmark.hpp"
#include "device/platform/device_info.hpp"
#include "run/case_prefetch.hpp"
#include "plan/bench_shapes.hpp"
#include "plan/case_settle.hpp"

namespace mlacheck::cli {

namespace {

struct BenchRow {
  MlaDecodeProblem problem;
  std::string check;  // the oracle check's state, e.g. PASSED
  DecodeTiming timing;
  double gbps = 0.0, tflops = 0.0, copy_fraction = 0.0;
  BenchTarget target;
  double over_split = 0.0;  // persistent rows: time over the split-KV twin's, 0 when it was not timed
  BenchTarget path_target;
};

// Each persistent row against its split-KV twin (the same name up to the path). The target holds
// where auto picks the persistent path on this device (device/hip_backend/decode_path.hpp).
void compare_paths(std::vector<BenchRow>& rows, int compute_units) {
  const std::string persistent = "." + std::string(to_string(DecodePath::persistent));
  const std::string split = "." + std::string(to_string(DecodePath::split_kv));
  for (BenchRow& r : rows) {
    const std::string& name = r.problem.name;
    if (!name.ends_with(persistent)) continue;
    const std::string twin = name.substr(0, name.size() - persistent.size()) + split;
    for (const BenchRow& other : rows) {
      if (other.problem.name == twin && other.timing.median_us > 0.0) r.over_split = r.timing.median_us / other.timing.median_us;
    }
    MlaDecodeProblem automatic = r.problem;
    automatic.path = DecodePath::automatic;
    if (choose_decode_path(automatic, compute_units).path == DecodePath::persistent) {
      r.path_target = persistent_target(r.over_split);
    }
  }
}

// copy_gbps is 0 for a host plugin: there is no device copy to compare with.
void print_table(const std::vector<BenchRow>& rows, double copy_gbps) {
  std::printf("\n%-28s %-10s %6s %10s %9s %7s %9s  %-8s %8s  %s\n", "shape", "path", "work", "median us", "GB/s",
              "%copy", "TFLOP/s", "oracle", "/split", "target");
  const auto verdict = [](const BenchTarget& t) {
    return t.what.empty() ? std::string() : t.what + (t.met ? " (met)" : " (missed)");
  };
  for (const BenchRow& r : rows) {
    const std::string target_verdict = verdict(r.target);
    const std::string path_verdict = verdict(r.path_target);
    char over[16] = "";
    if (r.over_split > 0.0) std::snprintf(over, sizeof over, "%.3f", r.over_split);
    std::printf("%-28s %-10s %6d %10.1f %9.1f %6.1f%% %9.1f  %-8s %8s  %s%s%s\n", r.problem.name.c_str(),
                r.timing.path.c_str(), r.timing.work_count, r.timing.median_us, r.gbps, 100.0 * r.copy_fraction,
                r.tflops, r.check.c_str(), over,
                target_verdict.c_str(), path_verdict.empty() || target_verdict.empty() ? "" : "; ",
                path_verdict.c_str());
  }
  if (copy_gbps > 0.0) std::printf("copy bandwidth measured in this run: %.1f GB/s (bytes read + written)\n", copy_gbps);
}

void write_csv(const std::string& path, const std::vector<BenchRow>& rows, double copy_gbps) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << "shape,path,work,median_us,gb_per_s,copy_fraction,tflop_per_s,oracle,target,target_met,copy_gb_per_s,runs,"
         "over_split,path_target_met\n";
  for (const BenchRow& r : rows) {
    out << r.problem.name << ',' << r.timing.path << ',' << r.timing.work_count << ',' << r.timing.median_us << ','
        << r.gbps << ',' << r.copy_fraction << ',' << r.tflops << ',' << r.check << ',' << r.target.what << ','
        << (r.target.met ? 1 : 0) << ',' << copy_gbps << ',' << r.timing.us.size() << ',' << r.over_split << ','
        << (r.path_target.met ? 1 : 0) << '\n';
  }
}

}  // namespace

void add_bench_command(CLI::App& app, BenchOptions& options) {
  CLI::App* cmd = app.add_subcommand("bench", "Time the decode paths against the copy bandwidth, and the harness");
  cmd->add_option("--device", options.device, "GPU index")->capture_default_str()->check(whole_number(0, 1023));
  cmd->add_option("--runs", options.runs, "Timed runs per shape (median reported)")->capture_default_str()->check(whole_number(20, 100000));
  cmd->add_option("--warmup", options.warmup, "Untimed runs first")->capture_default_str()->check(whole_number(0, 100000));
  cmd->add_flag("--quick", options.quick, "Small shapes: checks the command works; not figures to report");
  cmd->add_option("--csv", options.csv, "Write every row to this CSV file");
  cmd->add_option("--filter", options.filter, "Only the shapes whose name contains this text (e.g. kv4096, h128, split_kv)");
  cmd->add_flag("--skip-throughput", options.skip_throughput, "Leave out the harness section");
  add_harness_section_options(cmd, options.harness);
  cmd->add_option("--backend", options.backend, "\"hip\" or the path of a backend plugin .so to time")
      ->capture_default_str();
}

int run_bench(const BenchOptions& options) {
  // The backend first: a host plugin needs no GPU, and a file that is no plugin is an error.
  if (is_plugin_spec(options.backend)) std::printf("backend: %s\n", describe_backend(options.backend).c_str());
  BackendOrReason backend = make_backend(options.backend, options.device);
  // The hip backend and device plugins run on a GPU; a host plugin on none (device_index -1).
  const bool on_gpu = backend.backend == nullptr || backend.backend->device_index() >= 0;
  const DeviceAvailability avail = probe_devices();
  if (on_gpu && options.device >= avail.count) {
    std::fprintf(stderr, "mlacheck bench: no GPU %d to time on: %s\n", options.device,
                 avail.count == 0 ? avail.reason.c_str() : "index out of range");
    return 2;
  }
  if (!backend.backend) throw std::runtime_error(backend.reason);
  std::printf("device: %s\n", backend.backend->device_name().c_str());
  const double copy_gbps =
      on_gpu ? copy_bandwidth_gbps(options.device, options.quick ? (std::size_t{1} << 26) : (std::size_t{1} << 30), 20)
             : 0.0;
  if (!on_gpu) {
    std::printf("host plugin: each run() timed with a steady clock on this thread; no cache is flushed between "
                "runs and there is no device copy bandwidth to compare with\n");
  }

  std::vector<MlaDecodeProblem> shapes;
  for (MlaDecodeProblem& p : decode_bench_shapes(options.quick)) {
    if (p.name.find(options.filter) != std::string::npos) shapes.push_back(std::move(p));
  }
  std::vector<BenchRow> rows;
  const std::vector<scenarios::KnownBug> known_bugs = load_known_bug_table(std::nullopt);
  const SettleContext settle{CaseOrigin::curated, backend_kind(options.backend), true, &known_bugs};
  bool every_check_passed = true;
  // Each shape checked against the oracle, then timed on the same inputs, through the harness's
  // prefetching driver: the oracle of the next shapes runs on CPU threads meanwhile. At most
  // `depth` shapes are held at once (the current one and depth - 1 prepared ahead): half the
  // host's threads, at least 3 and at most 8 (a kv-8192 shape holds a few GB of inputs).
  const std::size_t depth = std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 3, 8);
  BenchTimingBackend timing(*backend.backend, options.warmup, options.runs);
  const std::vector<CaseProblem> cases(shapes.begin(), shapes.end());
  run_cases(cases, &timing, backend.reason, {}, PrefetchOptions{depth - 1}, [&](std::size_t i, CaseResult check) {
    const MlaDecodeProblem& shape = shapes[i];
    settle_case(check, settle);  // the shapes are curated: the built-in backend refusing one fails
    every_check_passed &= !is_failure(check.state);
    const std::optional<DecodeTiming> timed = timing.take_timing(shape.name);
    if (!timed) {
      std::printf("%-28s not timed: %s: %s\n", shape.name.c_str(), std::string(to_string(check.state)).c_str(),
                  check.reason.c_str());
      return;
    }
    BenchRow r;
    r.problem = shape;
    r.check = std::string(to_string(check.state));
    r.timing = *timed;
    const double seconds = r.timing.median_us * 1e-6;
    r.gbps = decode_min_bytes(shape) / seconds / 1e9;
    r.tflops = decode_flops(shape) / seconds / 1e12;
    // The speed targets are the GPU decode's; a host plugin is measured, not held to them.
    if (copy_gbps > 0.0) {
      r.copy_fraction = r.gbps / copy_gbps;
      r.target = decode_target(shape, r.gbps, r.tflops, copy_gbps);
    }
    std::printf("%-28s %-10s %10.1f us  %s\n", shape.name.c_str(), r.timing.path.c_str(), r.timing.median_us,
                r.check.c_str());
    std::fflush(stdout);
    rows.push_back(std::move(r));
  });
  if (copy_gbps > 0.0) compare_paths(rows, device_info(options.device).compute_units);
  print_table(rows, copy_gbps);
  if (!options.csv.empty()) write_csv(options.csv, rows, copy_gbps);
  if (!options.skip_throughput) {
    run_harness_section(backend.backend.get(), backend.reason, on_gpu, options.quick, options.harness, options.backend,
                        on_gpu ? std::optional<int>(options.device) : std::nullopt);
  }
  for (const BenchRow& r : rows) {
    if (r.check != "PASSED") every_check_passed = false;  // a fast wrong kernel is no result
  }
  return every_check_passed ? 0 : 1;
}

}  // namespace mlacheck::cli
