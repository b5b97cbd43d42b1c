#pragma once
// What `mlacheck run` runs, as a flat list of cases with ids: the oracle self-checks, every
// scenario (clean) and the e4m3fn twin of each fnuz one (scenario.<id>-fn), the default sweep, the covering array of the production factors, and a property sweep drawn from the rapidcheck generators,
// or the one case of --case. Each case travels to a worker process as its repro string.
//
// One id per case everywhere: a case's id is also the name in its repro string, so the row a
// worker finishes, the row the case isolation writes for a case it lost, and the plan entry that
// --resume looks up all carry the same id.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/gather_problem_gen.hpp"
#include "core/support_space.hpp"
#include "generators/mla_problem_gen.hpp"
#include "harness/case_origin.hpp"

namespace mlacheck {

struct RunCase {
  enum class Kind : std::uint8_t { oracle_self_check, device };
  std::string id;
  Kind kind = Kind::device;
  std::string repro;  // mla_decode:... or kv_gather:...; its name is the id
  double timeout_s = 0.0;  // the watchdog's limit for this case
  // Curated cases (scenarios, the default sweep, --case) must run; only generated ones (the
  // property sweep) may be SKIPPED by the backend's supports() (harness/case_origin.hpp).
  CaseOrigin origin = CaseOrigin::curated;
};

struct RunPlanOptions {
  std::string case_repro;      // --case: only this case
  std::uint64_t seed = 1;      // seeds the default and property sweeps
  int property_cases = 64;     // cases drawn from the property generators
  std::string scenarios_file;  // "" for none
  // The production factor tables (plan/data_files.hpp): the plan holds the
  // strength-`coverage_strength` covering array of them (plan/coverage_cases.hpp, ids cover-N).
  // Empty factors: none.
  std::string factors_file, impossible_file;
  int coverage_strength = 3;
  // Curated repro files (plan files' repro-file lines): one repro string per line, '#' comments.
  std::vector<std::string> repro_files;
  // The property sweep's per-case work budget (case_work, harness/op_registry.hpp): the generator
  // draws within it where it can bound the oracle's work, and a drawn case still above it is drawn
  // again (at most kBudgetRedraws times, then left out), so no case of a tier holds its sitting
  // up. 0: none beyond property_sweep_limits(). A separate field from the generator limits, which
  // other parameters of the sweep (its support space) shape.
  double property_case_work_budget = 0.0;
  // Parts of the full plan; the harness C API opens the scenarios or a property sweep alone.
  bool oracle_self_checks = true;
  bool default_sweeps = true;
  // Decode sequences (core/mla_sequence.hpp): default_sequence_sweep and the property sweep's
  // share (property_sweep_limits). On in every plan `mlacheck run` and the harness C API open;
  // off leaves a plan of one-step cases (the sequence scenario rows stay).
  bool decode_sequences = true;
  // The property sweep's support space (core/support_space.hpp): its decode cases are drawn
  // within it (a space without sequences draws none) and it draws no gather cases, which test
  // mlacheck's own kernels rather than the backend whose space this is. The default sweeps and
  // scenarios stay as they are. nullopt: the full sweep.
  std::optional<SupportSpace> space;
  double timeout_base_s = 120.0;
};

// The property sweep's generator bounds, reached by its last cases (sizes grow over the sweep):
// realistic serving shapes (up to 64 requests, caches to 16k tokens, one rank of 128 heads in 12%
// of cases, 3% with a request at the 16k boundary, 12% decode sequences), only shapes the kernels
// take, and the oracle's work per case bounded to about a second of one core (docs/properties.md has
// the cost).
MlaGenLimits property_sweep_limits();
GatherGenLimits property_sweep_gather_limits();

// What building a plan left out: property cases over the work budget ("sweep-N work=W", each
// draw that was drawn again), for the run to report.
struct PlanNotes {
  std::vector<std::string> budget_excluded;
};
inline constexpr int kBudgetRedraws = 20;

// Throws for a malformed --case repro string, scenario or repro file (the user's input errors).
std::vector<RunCase> build_run_plan(const RunPlanOptions& options, PlanNotes* notes = nullptr);

// Orders cases for a sitting: the oracle self-checks first, as they were (a worker sends their rows
// before its device cases'), then the device cases by oracle work (case_work), costliest first,
// equal work in plan order; so a long case starts early and the sitting's tail is short cases
// overlapping each other, not one long case alone. Rows carry their ids, whatever the order.
void order_costliest_first(std::vector<RunCase>& cases);

// The watchdog limit of a case: a base plus time for its oracle and kernels, which grow with
// kv tokens x query rows x heads x Lk (generous: the oracle may run under a sanitizer), and with
// the cache pool's bytes times the steps (a host-memory backend stages the whole pool each step).
double case_timeout_s(const std::string& repro, double base_s);

}  // namespace mlacheck
