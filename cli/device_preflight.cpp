#include "cli/device_preflight.hpp"

#include <cstdlib>
#include <sstream>

#include "cli/backend_description.hpp"
#include "run/child_process.hpp"
#include "device/backend.hpp"
#include "device/backend_factory.hpp"
#include "device/platform/device_info.hpp"

namespace mlacheck::cli {

namespace {

std::string one_line(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// A host plugin's one "device": the plugin opened where it runs, in host memory.
GpuCensus take_host_census(const std::string& backend_spec) {
  GpuCensus census;
  census.count = 1;
  const BackendOrReason made = make_backend(backend_spec, 0);
  census.probed.push_back({0, made.backend != nullptr, made.backend ? made.backend->device_name() : made.reason});
  return census;
}

GpuCensus take_census(const std::optional<int>& requested, const std::string& backend_spec, bool host_plugin) {
  if (std::getenv("MLACHECK_TEST_CRASH_DEVICE_PROBE") != nullptr) std::abort();
  if (host_plugin) return take_host_census(backend_spec);
  GpuCensus census;
  const DeviceAvailability avail = probe_devices();
  census.count = avail.count;
  census.none_reason = avail.reason;
  std::vector<int> asked;
  if (requested) {
    if (*requested < avail.count) asked.push_back(*requested);
  } else {
    for (int i = 0; i < avail.count; ++i) asked.push_back(i);
  }
  for (int i : asked) {
    const BackendOrReason made = make_backend(backend_spec, i);
    census.probed.push_back({i, made.backend != nullptr, made.backend ? made.backend->device_name() : made.reason});
  }
  return census;
}

}  // namespace

DevicePlan plan_devices(const std::optional<int>& requested, const GpuCensus& census) {
  DevicePlan plan;
  if (census.count == 0) {
    plan.no_gpu_reason = census.none_reason.empty() ? "no GPU" : census.none_reason;
    return plan;
  }
  if (requested && *requested >= census.count) {
    throw PreflightError("--device " + std::to_string(*requested) + ": GPU " + std::to_string(*requested) +
                         " does not exist (" + std::to_string(census.count) + " visible: 0.." +
                         std::to_string(census.count - 1) + ")");
  }
  for (const GpuCensus::Gpu& g : census.probed) {
    if (!g.usable) {
      throw PreflightError("the backend cannot start on GPU " + std::to_string(g.index) + ": " + g.name_or_reason);
    }
    plan.devices.push_back(g.index);
    plan.names.push_back(g.name_or_reason);
  }
  if (plan.devices.empty()) throw PreflightError("the device probe reported none of the " + std::to_string(census.count) + " GPUs");
  return plan;
}

std::string encode_census(const GpuCensus& census) {
  std::string out = "count\t" + std::to_string(census.count) + "\t" + one_line(census.none_reason) + "\n";
  for (const GpuCensus::Gpu& g : census.probed) {
    out += "gpu\t" + std::to_string(g.index) + "\t" + (g.usable ? "1" : "0") + "\t" + one_line(g.name_or_reason) + "\n";
  }
  return out;
}

GpuCensus decode_census(const std::string& text) {
  GpuCensus census;
  std::istringstream lines(text);
  bool counted = false;
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> f;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1) {
      f.push_back(line.substr(start, tab - start));
    }
    f.push_back(line.substr(start));
    try {
      if (f.size() == 3 && f[0] == "count") {
        census.count = std::stoi(f[1]);
        census.none_reason = f[2];
        counted = true;
        continue;
      }
      if (f.size() == 4 && f[0] == "gpu" && (f[2] == "0" || f[2] == "1")) {
        census.probed.push_back({std::stoi(f[1]), f[2] == "1", f[3]});
        continue;
      }
    } catch (const std::exception&) {
    }
    throw PreflightError("the device probe answered something unreadable: '" + line + "'");
  }
  if (!counted) throw PreflightError("the device probe answered nothing");
  return census;
}

DevicePlan preflight_devices(const std::optional<int>& requested, const std::string& backend_spec, double timeout_s) {
  // A host plugin needs no GPU: its census is the plugin opened once, as device 0.
  const bool host_plugin = runs_on_host(backend_spec);
  const std::optional<int> asked = host_plugin ? std::optional<int>(0) : requested;
  const ChildOutcome probe =
      run_forked([&] { return encode_census(take_census(asked, backend_spec, host_plugin)); }, timeout_s);
  if (probe.timed_out) throw PreflightError("the device probe hung: killed " + probe.ended);
  if (!probe.reported) throw PreflightError("the device probe crashed: " + probe.ended);
  return plan_devices(asked, decode_census(probe.output));
}

}  // namespace mlacheck::cli
