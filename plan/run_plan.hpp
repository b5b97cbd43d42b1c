#pragma once
// What `mlacheck run` runs, as a flat list of cases with ids: the oracle self-checks, every
// scenario (clean), the default sweep and a property sweep drawn from the rapidcheck generators,
// or the one case of --case. Each case travels to a worker process as its repro string.
#include <cstdint>
#include <string>
#include <vector>


namespace mlacheck {

struct RunCase {
  enum class Kind : std::uint8_t { oracle_self_check, device };
  std::string id;
  Kind kind = Kind::device;
  std::string repro;  // mla_decode:... or kv_gather:...
  double timeout_s = 0.0;  // the watchdog's limit for this case
};

struct RunPlanOptions {
  std::string case_repro;      // --case: only this case
  std::uint64_t seed = 1;      // seeds the default and property sweeps
  int property_cases = 64;     // cases drawn from the property generators
  std::string scenarios_file;  // "" for none
  // Parts of the full plan; the harness C API opens the scenarios or a property sweep alone.
  bool oracle_self_checks = true;
  bool default_sweeps = true;
  double timeout_base_s = 120.0;
};

// Throws for a malformed --case repro string or scenario file (the user's input errors).
std::vector<RunCase> build_run_plan(const RunPlanOptions& options);

// The watchdog limit of a case: a base plus time for its oracle and kernels, which grow with
// kv tokens x query rows x heads x Lk (generous: the oracle may run under a sanitizer).
double case_timeout_s(const std::string& repro, double base_s);

}  // namespace mlacheck
