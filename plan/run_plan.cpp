#include "plan/run_plan.hpp"

#include <rapidcheck.h>

#include <set>
#include <stdexcept>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "core/mla_sequence.hpp"
#include "generators/gather_problem_gen.hpp"
#include "generators/mla_problem_gen.hpp"
#include "harness/op_registry.hpp"
#include "plan/coverage_cases.hpp"
#include "plan/default_sweep.hpp"
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
// gather case in eight; deterministic from the seed.
std::vector<RunCase> property_sweep(std::uint64_t seed, int count, bool decode_sequences) {
  std::vector<RunCase> out;
  rc::Random random(seed);
  MlaGenLimits limits = property_sweep_limits();
  if (!decode_sequences) limits.sequence_percent = 0;
  for (int i = 0; i < count; ++i) {
    const int size = count > 1 ? i * 100 / (count - 1) : 50;
    const rc::Random draw = random.split();
    std::string repro;
    if (i % 8 == 7) {
      KvGatherProblem p = gen_kv_gather_problem(property_sweep_gather_limits())(draw, size).value();
      p.name = "sweep-" + std::to_string(i);
      repro = to_repro(p);
    } else {
      MlaDecodeProblem p = gen_mla_decode_problem(limits)(draw, size).value();
      p.name = "sweep-" + std::to_string(i);
      repro = to_repro(p);
    }
    out.push_back({"sweep-" + std::to_string(i), RunCase::Kind::device, repro, 0.0, CaseOrigin::generated});
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

double case_timeout_s(const std::string& repro, double base_s) {
  return base_s + 4e-9 * case_work(parse_case(repro));
}

std::vector<RunCase> build_run_plan(const RunPlanOptions& options) {
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
      }
    }
    if (options.default_sweeps) {
      for (const MlaDecodeProblem& p : default_mla_sweep(options.seed)) {
        plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
      }
      if (options.decode_sequences) {
        for (const MlaDecodeProblem& p : default_sequence_sweep(options.seed)) {
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
      for (const KvGatherProblem& p : default_gather_sweep(options.seed)) {
        plan.push_back({p.name, RunCase::Kind::device, to_repro(p), 0.0});
      }
    }
    for (RunCase& c : property_sweep(options.seed, options.property_cases, options.decode_sequences)) {
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
  return plan;
}

}  // namespace mlacheck
