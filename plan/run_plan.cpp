#include "plan/run_plan.hpp"

#include <rapidcheck.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <variant>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "core/mla_sequence.hpp"
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"
#include "harness/op_registry.hpp"
#include "plan/coverage_cases.hpp"
#include "plan/default_sweep.hpp"
#include "plan/fp8_twins.hpp"
#include "plan/oracle_self_check_problems.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck {

namespace {

// The scenario's problem renamed to its plan id, so the repro, the row and the plan agree.
std::string repro_of(CaseProblem p, const std::string& id) {
  rename_case(p, id);
  return to_repro(p);
}

std::string name_in(const std::string& repro) { return case_name(parse_case(repro)); }

// Draws `count` problems from the property generators, sizes growing as rapidcheck's do, one
// gather case in eight (none within a space); deterministic from the seed. A draw whose work
// exceeds the options' work budget (> 0) is drawn again from the next split of the random stream,
// and noted in `excluded`.
std::vector<RunCase> property_sweep(const RunPlanOptions& options, std::vector<std::string>& excluded) {
  const int count = options.property_cases;
  const double budget = options.property_case_work_budget;
  std::vector<RunCase> out;
  rc::Random random(options.seed);
  MlaGenLimits limits = property_sweep_limits();
  if (!options.decode_sequences) limits.sequence_percent = 0;
  // The budget shapes the draws (constrained generation: cache lengths sized to it, as the
  // generator sizes them to its oracle cap), so a small budget thins the heavy draws instead of
  // leaving cases out; the redraw below then only catches what the generator cannot bound (the
  // long-KV request, head padding). Oracle FLOPs count both products, case_work the first alone
  // at padded heads: a case of f FLOPs has at most f / 2 units of case_work before padding.
  if (budget > 0.0) limits.max_oracle_flops = std::min(limits.max_oracle_flops, 2.0 * budget);
  limits.space = options.space;
  for (int i = 0; i < count; ++i) {
    const int size = count > 1 ? i * 100 / (count - 1) : 50;
    const std::string id = "sweep-" + std::to_string(i);
    std::string repro;
    for (int attempt = 0; attempt <= kBudgetRedraws; ++attempt) {
      const rc::Random draw = random.split();
      if (i % 8 == 7 && !options.space) {
        KvGatherProblem p = gen_kv_gather_problem(property_sweep_gather_limits())(draw, size).value();
        p.name = id;
        repro = to_repro(p);
      } else {
        MlaDecodeProblem p = gen_mla_decode_problem(limits)(draw, size).value();
        p.name = id;
        repro = to_repro(p);
      }
      const double work = case_work(parse_case(repro));
      if (budget <= 0.0 || work <= budget) break;
      excluded.push_back(id + " work=" + std::to_string(static_cast<long long>(work)) + ": " + repro);
      repro.clear();
    }
    if (!repro.empty()) out.push_back({id, RunCase::Kind::device, repro, 0.0, CaseOrigin::generated});
  }
  return out;
}

// The repro strings of a repro file, named by their own name= (their plan id).
std::vector<RunCase> repro_file_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("repro file " + path + " cannot be opened");
  std::vector<RunCase> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const auto first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    line = line.substr(first, line.find_last_not_of(" \t\r") + 1 - first);
    try {
      out.push_back({name_in(line), RunCase::Kind::device, line, 0.0});
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(path + ":" + std::to_string(n) + ": " + e.what());
    }
  }
  return out;
}

}  // namespace

MlaGenLimits property_sweep_limits() {
  return {.max_batch = 64,
          .max_kv_len = 16384,
          .long_kv_percent = 3,
          .max_oracle_flops = 1.6e10,  // about 1 s of the Eigen oracle on one core (~17 GFLOP/s)
          .device_shapes_only = true,
          .heads128_percent = 12,
          .past_4gib_percent = 1,  // a 4 GiB device pool each: rare
          .sequence_percent = 12};
}

GatherGenLimits property_sweep_gather_limits() { return {.max_batch = 16, .max_kv_len = 4096}; }

void order_costliest_first(std::vector<RunCase>& cases) {
  std::vector<double> work;
  for (const RunCase& c : cases) work.push_back(case_work(parse_case(c.repro)));
  std::vector<std::size_t> order(cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto self_check = [&](std::size_t i) { return cases[i].kind == RunCase::Kind::oracle_self_check; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (self_check(a) != self_check(b)) return self_check(a);
    return !self_check(a) && work[a] > work[b];
  });
  std::vector<RunCase> sorted;
  for (std::size_t i : order) sorted.push_back(std::move(cases[i]));
  cases = std::move(sorted);
}

double case_timeout_s(const std::string& repro, double base_s) {
  const CaseProblem c = parse_case(repro);
  double pool_s = 0.0;
  // A backend in host memory stages (and poisons) the whole cache pool every step: 4 GiB of pool
  // past first_block took over 120 s in three steps on a loaded 2-core host (issue 36).
  if (const auto* p = std::get_if<MlaDecodeProblem>(&c)) pool_s = 1e-8 * static_cast<double>(cache_pool_bytes(*p)) * p->steps;
  return base_s + 4e-9 * case_work(c) + pool_s;
}

std::vector<RunCase> build_run_plan(const RunPlanOptions& options, PlanNotes* notes) {
  std::vector<std::string> excluded;
  std::vector<RunCase> plan;
  if (!options.case_repro.empty()) {
    // Parse now: a malformed repro string is reported before any process starts.
    plan.push_back({name_in(options.case_repro), RunCase::Kind::device, options.case_repro, 0.0});
  } else {
    if (options.oracle_self_checks) {
      for (const MlaDecodeProblem& p : oracle_self_check_problems(options.seed)) {
        plan.push_back({p.name, RunCase::Kind::oracle_self_check, to_repro(p), 0.0});
      }
    }
    if (!options.scenarios_file.empty()) {
      for (const scenarios::Scenario& s : scenarios::load_scenarios(options.scenarios_file)) {
        const std::string id = "scenario." + s.id;
        plan.push_back({id, RunCase::Kind::device, repro_of(s.problem, id), 0.0});
        // The clean row's e4m3fn twin (plan/fp8_twins.hpp), so a kernel without fnuz runs it too.
        if (const auto* decode = std::get_if<MlaDecodeProblem>(&s.problem)) {
          if (const std::optional<MlaDecodeProblem> twin = e4m3fn_twin(*decode)) {
            const std::string twin_id = id + kFp8TwinSuffix;
            plan.push_back({twin_id, RunCase::Kind::device, repro_of(*twin, twin_id), 0.0});
          }
        }
      }
    }
    if (options.default_sweeps) {
      for (const MlaDecodeProblem& p : with_e4m3fn_twins(default_mla_sweep(options.seed))) {
        plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
      }
      if (options.decode_sequences) {
        for (const MlaDecodeProblem& p : with_e4m3fn_twins(default_sequence_sweep(options.seed))) {
          plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
        }
      }
      for (const KvGatherProblem& p : default_gather_sweep(options.seed)) {
        plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
      }
    }
    if (!options.factors_file.empty()) {
      const FactorTable table = load_factor_table(options.factors_file, options.impossible_file);
      for (const MlaDecodeProblem& p : covering_array_cases(table, options.coverage_strength, options.seed)) {
        if (p.steps > 1 && !options.decode_sequences) continue;
        plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
      }
    }
    for (const std::string& file : options.repro_files) {
      for (RunCase& c : repro_file_cases(file)) plan.push_back(std::move(c));
    }
    for (RunCase& c : property_sweep(options, excluded)) {
      plan.push_back(std::move(c));
    }
  }
  std::set<std::string> ids;
  for (RunCase& c : plan) {
    if (!ids.insert(c.id).second) throw std::logic_error("run plan: case id '" + c.id + "' appears twice");
    if (name_in(c.repro) != c.id) {
      throw std::logic_error("run plan: case id '" + c.id + "' is not the name in its repro string " + c.repro);
    }
    c.timeout_s = case_timeout_s(c.repro, options.timeout_base_s);
  }
  if (notes != nullptr) notes->budget_excluded = std::move(excluded);
  return plan;
}

}  // namespace mlacheck
