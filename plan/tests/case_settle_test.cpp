// The settle step (plan/case_settle.hpp) with a stand-in backend, without a GPU: admission (which
// GPU a row names, memory), the refusal policy by origin and backend kind, known bugs, lost cases,
// and that each route's context settles a curated refusal and a known bug as the policy says.
#include <algorithm>

#include <gtest/gtest.h>

#include "harness/device_outcome.hpp"
#include "harness/lost_case.hpp"
#include "harness/op_registry.hpp"
#include "plan/case_settle.hpp"
#include "scenarios/tests/temp_table.hpp"

namespace mlacheck {
namespace {

// Runs nothing: admission and the policy never get that far for a refused case.
class RefusingBackend final : public Backend {
 public:
  std::string name() const override { return "stand-in"; }
  std::string device_name() const override { return "Stand-in GPU (sm_00)"; }
  std::optional<std::string> supports(const MlaDecodeProblem& p) const override {
    if (p.q_dtype == DType::f32) return "q_dtype=f32: not taken";
    return std::nullopt;
  }
  std::optional<std::string> supports(const KvGatherProblem&) const override { return std::nullopt; }
  // A pool past 4 GiB does not fit this stand-in's memory.
  std::optional<std::string> lacks_memory(const MlaDecodeProblem& p) const override {
    if (cache_pool_bytes(p) > (std::int64_t{1} << 32))
      return "needs about 4200 MiB of device memory, 1000 MiB are free";
    return std::nullopt;
  }
  MlaDecodeRun run(const MlaDecodeProblem&, const MlaDecodeInputs&, const FaultSet&) override {
    throw std::logic_error("not run in these tests");
  }
  KvGatherRun run(const KvGatherProblem&, const KvGatherInputs&, const FaultSet&) override {
    throw std::logic_error("not run in these tests");
  }
  int device_index() const override { return 3; }
  std::string device_pci_bus_id() const override { return "0000:c1:00.0"; }
};

// How each route builds its context (cli/run_command.cpp, cli/scenarios_command.cpp,
// cli/mutate_command.cpp, cli/sensitivity_run.cpp, cli/bench_command.cpp, api/outcome_api.cpp).
SettleContext built_in(CaseOrigin origin, const std::vector<scenarios::KnownBug>* bugs = nullptr) {
  return {origin, BackendKind::built_in, true, bugs};
}
SettleContext external(CaseOrigin origin, const std::vector<scenarios::KnownBug>* bugs = nullptr) {
  return {origin, BackendKind::external, true, bugs};
}

MlaDecodeProblem f32_problem() {
  MlaDecodeProblem p;
  p.name = "f32";
  p.q_dtype = DType::f32;
  p.kv_lens = {17};
  return with_defaults(p);
}

TEST(Admission, TheRowNamesTheGpuByIndexAndBusId) {
  RefusingBackend backend;
  CaseResult row;
  EXPECT_TRUE(admit_case(row, &backend, "", with_defaults(MlaDecodeProblem{})));
  EXPECT_EQ(row.device, "Stand-in GPU (sm_00)");
  EXPECT_EQ(row.device_index, 3);
  EXPECT_EQ(row.device_pci_bus_id, "0000:c1:00.0");
}

TEST(RefusalPolicy, ACuratedCaseTheBackendRefusesFails) {
  RefusingBackend backend;
  CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
  ASSERT_EQ(row.state, ResultState::skipped);
  EXPECT_EQ(row.skip_reason, SkipReason::unsupported);
  settle_case(row, built_in(CaseOrigin::curated));
  EXPECT_EQ(row.state, ResultState::failed);
  // Its own disposition: a refused curated case, not wrong numbers, and no longer a skip.
  EXPECT_EQ(row.fail_kind, FailKind::refused_curated);
  EXPECT_EQ(row.skip_reason, SkipReason::none);
  EXPECT_EQ(row.reason, "the backend refuses a curated case (only generated cases may be skipped): q_dtype=f32: not taken");
  // Settling twice changes nothing (run's parent side may see a row a second time on --resume).
  const CaseResult once = row;
  settle_case(row, built_in(CaseOrigin::curated));
  EXPECT_EQ(row.state, once.state);
  EXPECT_EQ(row.fail_kind, once.fail_kind);
  EXPECT_EQ(row.reason, once.reason);
}

// The policy reads the typed skip reason, never the words: a not_enough_memory skip worded like a
// refusal stays SKIPPED, and an unsupported refusal worded like a memory skip FAILS.
TEST(RefusalPolicy, ReadsTheSkipReasonNeverTheWords) {
  CaseResult memory;
  memory.backend = "hip";
  set_skipped(memory, SkipReason::not_enough_memory, "q_dtype=f32: not taken");
  settle_case(memory, built_in(CaseOrigin::curated));
  EXPECT_EQ(memory.state, ResultState::skipped);
  CaseResult refused;
  refused.backend = "hip";
  set_skipped(refused, SkipReason::unsupported, "not enough memory on this machine: needs 1 MiB");
  settle_case(refused, built_in(CaseOrigin::curated));
  EXPECT_EQ(refused.state, ResultState::failed);
  EXPECT_EQ(refused.fail_kind, FailKind::refused_curated);
  CaseResult policy;
  set_skipped(policy, SkipReason::not_checked_by_policy, "kv_gather cases are not run here");
  settle_case(policy, built_in(CaseOrigin::curated));
  EXPECT_EQ(policy.state, ResultState::skipped);
}

TEST(RefusalPolicy, AnExternalBackendsRefusalOfACuratedCaseIsNotCheckedNeverAPass) {
  RefusingBackend backend;
  for (CaseOrigin origin : {CaseOrigin::curated, CaseOrigin::generated}) {
    CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
    settle_case(row, external(origin));
    EXPECT_EQ(row.state, ResultState::skipped) << to_string(origin);
    EXPECT_EQ(row.reason, "q_dtype=f32: not taken");
  }
}

TEST(RefusalPolicy, AGeneratedCaseTheBackendRefusesStaysSkipped) {
  RefusingBackend backend;
  CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
  settle_case(row, built_in(CaseOrigin::generated));
  EXPECT_EQ(row.state, ResultState::skipped);
  EXPECT_EQ(row.reason, "q_dtype=f32: not taken");
}

TEST(RefusalPolicy, NoBackendOnAMachineWithGpusIsAnErrorWithoutAnyGpuASkip) {
  for (CaseOrigin origin : {CaseOrigin::curated, CaseOrigin::generated}) {
    CaseResult row = prepare_mla_case(f32_problem(), nullptr, "GPU 0 cannot be used: out of memory").row;
    CaseResult no_gpu = row;
    EXPECT_EQ(row.skip_reason, SkipReason::no_device);
    settle_case(row, built_in(origin));
    EXPECT_EQ(row.state, ResultState::errored);
    EXPECT_EQ(row.error_kind, ErrorKind::backend_not_started);
    EXPECT_EQ(row.skip_reason, SkipReason::none);
    EXPECT_EQ(row.reason, "the backend could not start on a GPU this machine has: GPU 0 cannot be used: out of memory");
    settle_case(no_gpu, {origin, BackendKind::built_in, false, nullptr});
    EXPECT_EQ(no_gpu.state, ResultState::skipped);
    EXPECT_EQ(no_gpu.skip_reason, SkipReason::no_device);
  }
}

TEST(RefusalPolicy, ACaseTheGpuHasNoMemoryForStaysSkippedWhateverItsOrigin) {
  RefusingBackend backend;
  MlaDecodeProblem p;
  p.name = "past4g";
  p.kv_lens = {17};
  p.block_size = 32;
  p = with_defaults(p);
  p.first_block = first_block_past_4gib(p);
  p.num_blocks = 0;
  p = with_defaults(p);
  for (CaseOrigin origin : {CaseOrigin::curated, CaseOrigin::generated}) {
    CaseResult row = prepare_mla_case(p, &backend, "").row;
    ASSERT_EQ(row.state, ResultState::skipped);
    EXPECT_EQ(row.skip_reason, SkipReason::not_enough_memory);
    settle_case(row, built_in(origin));
    EXPECT_EQ(row.state, ResultState::skipped) << to_string(origin);
    EXPECT_EQ(row.reason,
              "not enough memory on this machine: needs about 4200 MiB of device memory, 1000 MiB are free");
  }
  // The same shape below 4 GiB is admitted.
  p.first_block = 0;
  p.num_blocks = 0;
  CaseResult row;
  EXPECT_TRUE(admit_case(row, &backend, "", with_defaults(p)));
}

TEST(RefusalPolicy, RowsThatRanAreUntouched) {
  CaseResult row;
  row.state = ResultState::passed;
  settle_case(row, built_in(CaseOrigin::curated));
  EXPECT_EQ(row.state, ResultState::passed);
}

// A known-bug table written by the test: one entry for 17-token caches of mla_decode.
const std::string kKnownBugs =
    "id,reference,case,path,backend,platform,rank_heads,q_len,note\n"
    "kv17,issue 1,mla_decode:kv=17,,,,,,a 17-token cache fails\n";

CaseResult failed_row(const std::string& backend_name) {
  CaseResult row;
  row.id = "f32";
  row.op = "mla_decode";
  row.repro = to_repro(f32_problem());
  row.backend = backend_name;
  row.state = ResultState::failed;
  row.reason = "O: 3 of 8 elements outside the bound";
  return row;
}

TEST(KnownBugs, AMatchingFailureOfAnyBackendIsAKnownBugWithItsDataKept) {
  const scenarios::TempTable table(kKnownBugs);
  const std::vector<scenarios::KnownBug> bugs = load_known_bug_table(table.path());
  for (const SettleContext& context : {built_in(CaseOrigin::curated, &bugs), external(CaseOrigin::generated, &bugs)}) {
    CaseResult row = failed_row("stand-in");
    settle_case(row, context);
    EXPECT_EQ(row.state, ResultState::known_bug);
    EXPECT_EQ(row.reason, "known bug kv17 (issue 1): O: 3 of 8 elements outside the bound");
    settle_case(row, context);  // idempotent
    EXPECT_EQ(row.reason, "known bug kv17 (issue 1): O: 3 of 8 elements outside the bound");
  }
}

TEST(KnownBugs, ABuiltInRefusalOfACuratedCaseIsAFailureTheTableCanExcuse) {
  const scenarios::TempTable table(kKnownBugs);
  const std::vector<scenarios::KnownBug> bugs = load_known_bug_table(table.path());
  RefusingBackend backend;
  CaseResult row = prepare_mla_case(f32_problem(), &backend, "").row;
  settle_case(row, built_in(CaseOrigin::curated, &bugs));
  EXPECT_EQ(row.state, ResultState::known_bug);
  EXPECT_EQ(row.reason,
            "known bug kv17 (issue 1): the backend refuses a curated case (only generated cases may be skipped): "
            "q_dtype=f32: not taken");
}

TEST(KnownBugs, AFaultedRowIsNeverExcused) {
  const scenarios::TempTable table(kKnownBugs);
  const std::vector<scenarios::KnownBug> bugs = load_known_bug_table(table.path());
  CaseResult row = failed_row("hip");
  row.faults = "tile-width-from-lk";
  settle_case(row, built_in(CaseOrigin::curated, &bugs));
  EXPECT_EQ(row.state, ResultState::failed);
}

TEST(KnownBugs, ALostCaseIsSettledLikeAnyOther) {
  const scenarios::TempTable table(kKnownBugs);
  const std::vector<scenarios::KnownBug> bugs = load_known_bug_table(table.path());
  for (const std::string& reason : {process_died_reason("the worker process", "signal 11 (Segmentation fault)"),
                                    watchdog_reason(120, "the worker"), device_lost_reason("illegal address")}) {
    CaseResult row = failed_row("");  // a lost case's row names no backend
    set_errored(row, ErrorKind::crashed, reason);
    CaseResult unmatched = row;
    unmatched.repro = to_repro(with_defaults(MlaDecodeProblem{}));
    settle_case(row, built_in(CaseOrigin::curated, &bugs));
    EXPECT_EQ(row.state, ResultState::known_bug) << reason;
    EXPECT_EQ(row.error_kind, ErrorKind::crashed) << reason;  // a known bug keeps its kind
    settle_case(unmatched, built_in(CaseOrigin::curated, &bugs));
    EXPECT_EQ(unmatched.state, ResultState::errored) << reason;
    EXPECT_EQ(unmatched.reason, reason);
  }
}

TEST(KnownBugs, TheTableOptionIsTheShippedTableNoneOrAFile) {
  EXPECT_TRUE(load_known_bug_table(std::string()).empty());
  EXPECT_NO_THROW(load_known_bug_table(std::nullopt));  // the shipped table, from the source tree here
  const scenarios::TempTable table(kKnownBugs);
  EXPECT_EQ(load_known_bug_table(table.path()).size(), 1u);
  EXPECT_THROW(load_known_bug_table(table.path() + ".missing"), std::invalid_argument);
}

// The generic driver and the registry: the op is read from the repro string's prefix alone.
TEST(OpRegistry, ARegisteredOpRoundTripsThroughItsReproAndAnUnknownOneIsNamed) {
  const CaseProblem mla = parse_case(to_repro(f32_problem()));
  EXPECT_EQ(op_name(mla), "mla_decode");
  EXPECT_EQ(case_name(mla), "f32");
  EXPECT_EQ(to_repro(mla), to_repro(f32_problem()));
  EXPECT_EQ(op_of_repro("kv_gather:name=g"), "kv_gather");
  EXPECT_EQ(op_of_repro("kv_gatherx:name=g"), "");
  try {
    parse_case("conv2d:name=c");
    FAIL() << "parsed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("starts with none of mla_decode, kv_gather"), std::string::npos) << e.what();
  }
  CaseProblem renamed = mla;
  rename_case(renamed, "other");
  EXPECT_EQ(case_name(renamed), "other");
  RefusingBackend backend;
  const CaseResult row = run_case(mla, &backend, "");
  EXPECT_EQ(row.op, "mla_decode");
  EXPECT_EQ(row.state, ResultState::skipped);  // refused by supports(): never reaches run()
  EXPECT_GT(case_work(mla), 0.0);
}

// The facets hooks: reports and the known-bug table learn what a case is from the registry alone.
TEST(OpRegistry, EachOpStatesItsFacetsAndWhetherItHasQueries) {
  const CaseFacets mla = case_facets(parse_case("mla_decode:name=m;heads=8;kv=7,300;q=1,3;bs=1;kv_dtype=bf16"));
  EXPECT_EQ(mla.dtype, "bf16");
  EXPECT_EQ(mla.kv_len, 300);
  EXPECT_EQ(mla.heads, 8);
  EXPECT_EQ(mla.q_len, 3);
  EXPECT_EQ(mla.q_lens, (std::vector<int>{1, 3}));
  EXPECT_EQ(mla.block_size, 1);
  const CaseFacets gather =
      case_facets(parse_case("kv_gather:name=g;kv=5,40;kv_heads=2;bs=24;layout=shuffle;cache_dtype=bf16"));
  EXPECT_EQ(gather.kv_len, 40);
  EXPECT_EQ(gather.heads, 2);
  EXPECT_EQ(gather.q_len, 0);
  EXPECT_TRUE(gather.q_lens.empty());
  const auto has = [](const CaseFacets& f, const std::string& b) {
    return std::find(f.buckets.begin(), f.buckets.end(), b) != f.buckets.end();
  };
  EXPECT_TRUE(has(mla, "heads < 16"));
  EXPECT_TRUE(has(mla, "q_len not a power of two"));
  EXPECT_TRUE(has(mla, "block_size 1"));
  EXPECT_TRUE(has(gather, "SHUFFLE layout"));
  EXPECT_TRUE(has(gather, "block_size > 1, not 16 or 64"));
  EXPECT_FALSE(has(gather, "heads < 16"));

  // Every bucket a case lands in is one the registry lists, and no name is listed twice.
  const std::vector<std::string> all = op_coverage_buckets();
  for (const CaseFacets* f : {&mla, &gather}) {
    for (const std::string& b : f->buckets) EXPECT_NE(std::find(all.begin(), all.end(), b), all.end()) << b;
  }
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(std::count(all.begin(), all.end(), all[i]), 1) << all[i];
  }
  EXPECT_TRUE(op_has_queries("mla_decode"));
  EXPECT_FALSE(op_has_queries("kv_gather"));
  EXPECT_THROW(op_has_queries("conv2d"), std::invalid_argument);
}

}  // namespace
}  // namespace mlacheck
