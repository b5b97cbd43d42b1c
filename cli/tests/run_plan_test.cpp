// The plan of `mlacheck run`: its cases, their ids and origins, and each case's watchdog limit.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <variant>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "core/mla_sequence.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "plan/run_plan.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::cli {
namespace {

TEST(RunPlan, WatchdogLimitGrowsWithTheWork) {
  const double small = case_timeout_s("mla_decode:heads=16;kv=64", 60.0);
  const double large = case_timeout_s("mla_decode:heads=128;kv=16384*8;q=4*8", 60.0);
  EXPECT_GE(small, 60.0);
  EXPECT_GT(large, small + 10.0);
  EXPECT_EQ(case_timeout_s("kv_gather:kv=5", 60.0), 60.0);
  // A decode sequence runs every step.
  const double one = case_timeout_s("mla_decode:heads=128;kv=16384*2", 0.0);
  EXPECT_GT(case_timeout_s("mla_decode:heads=128;kv=16384*2;steps=8", 0.0), 7.0 * one);
  // A pool past 4 GiB is staged whole by a host-memory backend, every step.
  const double far = case_timeout_s("mla_decode:heads=16;kv=64;first_block=233100", 0.0);
  EXPECT_GT(far, 40.0);
  EXPECT_GT(case_timeout_s("mla_decode:heads=16;kv=64,0;q=1*2;first_block=233100;steps=3;leave=3,0", 0.0), 2.5 * far);
}

// Issue 13 item 3: the main job checks a backend's state across decode steps on both paths, with
// a request joining into a slot that was padding and one leaving.
TEST(RunPlan, TheDefaultJobRunsDecodeSequencesOnBothPaths) {
  std::set<std::string> paths;
  for (const RunCase& c : build_run_plan(RunPlanOptions{})) {
    if (c.origin != CaseOrigin::curated || c.repro.rfind("mla_decode:", 0) != 0) continue;
    const MlaDecodeProblem p = parse_mla_decode(c.repro);
    if (!is_sequence(p)) continue;
    bool joins = false, leaves = false;
    for (int r = 0; r < batch(p); ++r) {
      joins |= join_step(p, r) > 0 && join_step(p, r) < leave_step(p, r);
      leaves |= leave_step(p, r) < p.steps && join_step(p, r) < leave_step(p, r);
    }
    EXPECT_TRUE(joins && leaves) << c.id;
    paths.insert(std::string(to_string(p.path)));
  }
  EXPECT_TRUE(paths.count("split_kv") && paths.count("persistent"));
  // The harness C API's plans (one call of the caller's kernel per case) hold none.
  RunPlanOptions api;
  api.decode_sequences = false;
  api.property_cases = 200;
  for (const RunCase& c : build_run_plan(api)) {
    if (c.repro.rfind("mla_decode:", 0) == 0) {
      EXPECT_FALSE(is_sequence(parse_mla_decode(c.repro))) << c.id;
    }
  }
}

TEST(RunPlan, DefaultPlanHasUniqueIdsAndEveryKind) {
  RunPlanOptions o;
  o.property_cases = 16;
  const auto plan = build_run_plan(o);
  bool oracle = false, mla = false, gather = false;
  for (const RunCase& c : plan) {
    oracle |= c.kind == RunCase::Kind::oracle_self_check;
    mla |= c.kind == RunCase::Kind::device && c.repro.rfind("mla_decode:", 0) == 0;
    gather |= c.repro.rfind("kv_gather:", 0) == 0;
    EXPECT_GT(c.timeout_s, 0.0) << c.id;
  }
  EXPECT_TRUE(oracle && mla && gather);
  o.case_repro = "mla_decode:name=one;heads=16";
  EXPECT_EQ(build_run_plan(o).size(), 1u);
  o.case_repro = "mla_decode:heads=sixteen";
  EXPECT_THROW(build_run_plan(o), std::invalid_argument);
}

TEST(RunPlan, OneIdPerCaseEverywhere) {
  // The row a worker writes carries the repro's name; the plan, resume and merge key on the id.
  RunPlanOptions o;
  o.property_cases = 16;
  o.scenarios_file = MLACHECK_SOURCE_DIR "/scenarios/upstream.csv";
  bool scenario = false;
  for (const RunCase& c : build_run_plan(o)) {
    const std::string name = c.repro.rfind("kv_gather:", 0) == 0 ? parse_kv_gather(c.repro).name
                                                                  : parse_mla_decode(c.repro).name;
    EXPECT_EQ(name, c.id);
    scenario |= c.id.rfind("scenario.", 0) == 0;
  }
  EXPECT_TRUE(scenario);
}

// Issue 36: with the production factor tables, the default plan holds their strength-3 covering
// array as curated cases cover-N, each a valid descriptor; a plan without decode sequences keeps
// only the covering cases of one step.
TEST(RunPlan, TheDefaultPlanHoldsTheCoveringArray) {
  RunPlanOptions o;
  o.factors_file = MLACHECK_SOURCE_DIR "/plan/production_factors.csv";
  o.impossible_file = MLACHECK_SOURCE_DIR "/plan/impossible_combinations.csv";
  const auto plan = build_run_plan(o);
  int cover = 0, cover_sequences = 0;
  for (const RunCase& c : plan) {
    if (c.id.rfind("cover-", 0) != 0) continue;
    ++cover;
    EXPECT_EQ(c.origin, CaseOrigin::curated) << c.id;
    cover_sequences += is_sequence(parse_mla_decode(c.repro)) ? 1 : 0;
  }
  EXPECT_GE(cover, 180);  // at least heads x q_len x q_dtype values: 9 x 5 x 4
  EXPECT_GT(cover_sequences, 0);
  EXPECT_LE(plan.size(), 500u);  // the default job stays a few minutes' work
  o.decode_sequences = false;
  int one_step = 0;
  for (const RunCase& c : build_run_plan(o)) {
    if (c.id.rfind("cover-", 0) != 0) continue;
    EXPECT_FALSE(is_sequence(parse_mla_decode(c.repro))) << c.id;
    ++one_step;
  }
  EXPECT_EQ(one_step, cover - cover_sequences);
}

TEST(RunPlan, OnlyThePropertySweepIsGenerated) {
  RunPlanOptions o;
  o.property_cases = 16;
  o.scenarios_file = MLACHECK_SOURCE_DIR "/scenarios/upstream.csv";
  for (const RunCase& c : build_run_plan(o)) {
    EXPECT_EQ(c.origin == CaseOrigin::generated, c.id.rfind("sweep-", 0) == 0) << c.id;
  }
}

TEST(RunPlan, TheDefaultJobStressesPrecisionOnEveryPathAndCache) {
  RunPlanOptions o;
  const auto plan = build_run_plan(o);
  std::set<std::string> seen;
  int oracle_profiles = 0;
  for (const RunCase& c : plan) {
    if (c.repro.rfind("mla_decode:", 0) != 0) continue;
    const MlaDecodeProblem p = parse_mla_decode(c.repro);
    if (p.profile == FillProfile::uniform) continue;
    if (c.kind == RunCase::Kind::oracle_self_check) {
      ++oracle_profiles;
      continue;
    }
    if (c.origin != CaseOrigin::curated) continue;
    const std::string profile(to_string(p.profile));
    seen.insert(profile + " " + std::string(to_string(p.path)) + " " + std::string(to_string(p.o_dtype)));
    seen.insert(profile + " " + std::string(to_string(p.kv_dtype)));
    if (is_fp8(p.kv_dtype)) seen.insert("kv_scale " + std::to_string(p.kv_scale));
  }
  EXPECT_EQ(oracle_profiles, 2);  // the oracle checks itself on both shaped profiles
  for (const char* profile : {"sink", "extreme"}) {
    for (const char* path : {"split_kv", "persistent"}) {
      for (const char* out : {"bf16", "f16"}) {
        EXPECT_TRUE(seen.count(std::string(profile) + " " + path + " " + out)) << profile << " " << path << " " << out;
      }
    }
    for (const char* kv : {"bf16", "f16", "fp8_e4m3fn", "fp8_e4m3fnuz"}) {
      EXPECT_TRUE(seen.count(std::string(profile) + " " + kv)) << profile << " " << kv;
    }
  }
  for (float scale : {0x1p-8f, 0x1p-3f, 0x1p3f, 0x1p8f}) {
    EXPECT_TRUE(seen.count("kv_scale " + std::to_string(scale))) << scale;
  }
  // The default job stays a few minutes' work: its size with the default 64 property cases.
  EXPECT_LE(build_run_plan(o).size(), 200u);
}

TEST(RunPlan, ThePropertySweepDrawsRealisticShapesTheKernelsTake) {
  RunPlanOptions o;
  o.property_cases = 200;
  int mla = 0, heads128 = 0, max_kv = 0, max_batch = 0, refused = 0, sequences = 0;
  for (const RunCase& c : build_run_plan(o)) {
    if (c.origin != CaseOrigin::generated || c.repro.rfind("mla_decode:", 0) != 0) continue;
    const MlaDecodeProblem p = parse_mla_decode(c.repro);
    ++mla;
    heads128 += heads(p) == 128 ? 1 : 0;
    max_kv = std::max(max_kv, max_kv_len(p));
    max_batch = std::max(max_batch, batch(p));
    refused += kernels::split_kv_unsupported(kernels::split_kv_shape(p, 1)) ? 1 : 0;
    sequences += is_sequence(p) ? 1 : 0;
  }
  // One case in eight a decode sequence (property_sweep_limits).
  EXPECT_GE(sequences * 20, mla) << sequences << " of " << mla << " cases are sequences";
  EXPECT_LE(sequences * 5, mla) << sequences << " of " << mla << " cases are sequences";
  EXPECT_GE(heads128 * 10, mla) << heads128 << " of " << mla << " cases hold 128 heads per rank";
  EXPECT_GE(max_kv, 16383);
  EXPECT_GE(max_batch, 48);
  EXPECT_EQ(refused, 0);
}

}  // namespace
}  // namespace mlacheck::cli

namespace mlacheck {
namespace {

// The property sweep within a declared space (issue 34): every case inside it, no gather cases;
// the curated cases as without a space.
TEST(RunPlan, ASpaceDrawsThePropertySweepWithinIt) {
  RunPlanOptions o;
  o.property_cases = 80;
  o.space = parse_space("lv_rope=512/64;dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/bf16;heads=16..128;sequences=0");
  const auto spaced = build_run_plan(o);
  int generated = 0;
  for (const RunCase& c : spaced) {
    if (c.origin != CaseOrigin::generated) continue;
    ++generated;
    ASSERT_EQ(c.repro.rfind("mla_decode:", 0), 0u) << c.repro;
    std::string why;
    EXPECT_TRUE(contains(*o.space, parse_mla_decode(c.repro), &why)) << why << ": " << c.repro;
  }
  EXPECT_EQ(generated, 80);
  RunPlanOptions plain = o;
  plain.space.reset();
  std::vector<std::string> curated_spaced, curated_plain;
  for (const RunCase& c : spaced) {
    if (c.origin == CaseOrigin::curated) curated_spaced.push_back(c.repro);
  }
  for (const RunCase& c : build_run_plan(plain)) {
    if (c.origin == CaseOrigin::curated) curated_plain.push_back(c.repro);
  }
  EXPECT_EQ(curated_spaced, curated_plain);
}

// Each e4m3fnuz case of the default sweeps has its e4m3fn twin, `<id>-fn`, right after it.
TEST(RunPlan, EachFnuzDefaultCaseHasItsE4m3fnTwin) {
  const auto plan = build_run_plan(RunPlanOptions{});
  int twins = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (plan[i].kind != RunCase::Kind::device || plan[i].origin != CaseOrigin::curated ||
        plan[i].repro.rfind("mla_decode:", 0) != 0) {
      continue;
    }
    const MlaDecodeProblem p = parse_mla_decode(plan[i].repro);
    if (p.kv_dtype != DType::fp8_e4m3fnuz) continue;
    ASSERT_LT(i + 1, plan.size());
    EXPECT_EQ(plan[i + 1].id, plan[i].id + "-fn");
    MlaDecodeProblem twin = parse_mla_decode(plan[i + 1].repro);
    EXPECT_EQ(twin.kv_dtype, DType::fp8_e4m3fn);
    twin.kv_dtype = p.kv_dtype;
    twin.q_dtype = p.q_dtype;
    twin.name = p.name;
    EXPECT_EQ(twin, p);
    ++twins;
  }
  EXPECT_GT(twins, 10);
}

// Each clean e4m3fnuz scenario row of the run plan has its e4m3fn twin, scenario.<id>-fn, right
// after it; the twin is the same problem in e4m3fn, and no other scenario has one.
TEST(RunPlan, EachFnuzScenarioRowHasItsE4m3fnTwin) {
  RunPlanOptions o;
  o.scenarios_file = MLACHECK_SOURCE_DIR "/scenarios/upstream.csv";
  o.oracle_self_checks = false;
  o.default_sweeps = false;
  o.property_cases = 0;
  const auto plan = build_run_plan(o);
  const auto rows = scenarios::load_scenarios(o.scenarios_file);
  int fnuz_rows = 0;
  std::size_t at = 0;
  for (const scenarios::Scenario& s : rows) {
    ASSERT_LT(at, plan.size());
    EXPECT_EQ(plan[at].id, "scenario." + s.id);
    const auto* p = std::get_if<MlaDecodeProblem>(&s.problem);
    ++at;
    if (p == nullptr || (p->kv_dtype != DType::fp8_e4m3fnuz && p->q_dtype != DType::fp8_e4m3fnuz)) continue;
    ++fnuz_rows;
    ASSERT_LT(at, plan.size());
    EXPECT_EQ(plan[at].id, "scenario." + s.id + "-fn");
    MlaDecodeProblem twin = parse_mla_decode(plan[at].repro);
    EXPECT_NE(twin.kv_dtype, DType::fp8_e4m3fnuz);
    EXPECT_NE(twin.q_dtype, DType::fp8_e4m3fnuz);
    EXPECT_TRUE(twin.kv_dtype == DType::fp8_e4m3fn || twin.q_dtype == DType::fp8_e4m3fn);
    twin.kv_dtype = p->kv_dtype;
    twin.q_dtype = p->q_dtype;
    twin.name = p->name;
    EXPECT_EQ(twin, *p);
    ++at;
  }
  EXPECT_EQ(at, plan.size());  // nothing but the rows and their twins
  EXPECT_GE(fnuz_rows, 2);     // upstream.csv's r6 and r11 fnuz rows
}

}  // namespace
}  // namespace mlacheck
