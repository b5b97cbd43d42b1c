// Reading scenario tables: the shipped files, a good fixture, and each kind of malformed file,
// whose error must name the file, the line, the column (where one applies) and the reason.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <variant>

#include "core/mla_sequence.hpp"
#include "device/hip_backend/persistent_plan.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/table_error.hpp"
#include "scenarios/tests/temp_table.hpp"

namespace mlacheck::scenarios {
namespace {

const std::string kHeader = "id,upstream,reference,model,title,fault,caught_by,case,note\n";
const std::string kGoodCase = "mla_decode:heads=128;tp=8;lv=512;rope=64;kv=100,200;q=3,5;bs=16;path=split_kv;seed=1";
// A good mla_decode row whose case is kGoodCase with `more` fields after it; the cell quoted (its
// lists hold commas).
std::string good_row(const std::string& more = "") {
  return "ok,S4,ref,DeepSeek-V3,title,non-pow2-qlen-rows-collapse,comparison,\"" + kGoodCase + more + "\",note\n";
}
const std::string kGoodRow = good_row();
// kGoodRow with the first `from` of its case replaced by `to`.
std::string good_row_with(const std::string& from, const std::string& to) {
  std::string row = kGoodRow;
  row.replace(row.find(from), from.size(), to);
  return row;
}

// The TableError that loading `text` (written to a file) throws; fails the test if none.
TableError load_error(const std::string& text) {
  const TempTable file(text);
  try {
    load_scenarios(file.path());
  } catch (const TableError& e) {
    return e;
  }
  ADD_FAILURE() << "loaded without error:\n" << text;
  return TableError(file.path(), 0, "", "no error");
}

void expect_error(const std::string& text, int line, const std::string& column, const std::string& reason) {
  const TableError e = load_error(text);
  EXPECT_EQ(e.line(), line) << e.what();
  EXPECT_EQ(e.column(), column) << e.what();
  EXPECT_NE(std::string(e.what()).find(reason), std::string::npos) << e.what();
  const std::string place = e.file() + (line > 0 ? ":" + std::to_string(line) : "") +
                            (column.empty() ? "" : ": column '" + column + "'");
  EXPECT_EQ(std::string(e.what()).rfind(place, 0), 0u) << e.what();
}

TEST(ShippedScenarioTable, LoadsWithEveryUpstreamBugAndFault) {
  const auto scenarios = load_scenarios(std::string(MLACHECK_SCENARIO_DIR) + "/upstream.csv");
  std::set<std::string> bugs;
  std::set<Fault> faults;
  for (const Scenario& s : scenarios) {
    bugs.insert(s.upstream);
    faults.insert(s.fault);
  }
  for (const char* bug : {"S1", "S2", "S3", "S4", "S5", "S6", "S7", "R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8",
                          "R9", "R10", "R11", "R12"}) {
    EXPECT_EQ(bugs.count(bug), 1u) << bug << " has no scenario";
  }
  EXPECT_EQ(faults.size(), std::size(kAllFaults)) << "every fault has a scenario that reproduces it";
  // R4 shows only where every row read lies past 4 GiB of pool (docs/faults.md).
  for (const Scenario& s : scenarios) {
    if (s.fault != Fault::cache_offset_32bit) continue;
    const auto& p = std::get<MlaDecodeProblem>(s.problem);
    EXPECT_TRUE(cache_rows_past_4gib(p)) << s.id;
    EXPECT_GT(cache_pool_bytes(p), std::int64_t{1} << 32) << s.id;
  }
  // R3 shows only where the plan's partial rows outgrow one row per partial of the single-token
  // sizing: requests split over many CUs, on an H100's 132 SMs and an MI300X's 304 CUs alike.
  for (const Scenario& s : scenarios) {
    if (s.fault != Fault::metadata_sized_for_single_token) continue;
    const auto& p = std::get<MlaDecodeProblem>(s.problem);
    for (int slots : {132, 264, 304, 608}) {
      const PersistentPlan plan = plan_persistent_decode(planner_inputs(p), slots, {s.fault});
      EXPECT_LT(plan.partial_rows, plan.header.partial_rows) << s.id << " on " << slots << " block slots";
    }
  }
}

// R5 (CUDA-graph replay across decode steps) shows only in a decode sequence on the persistent path
// whose lengths change from the step the plan was built for; between them the rows join a request
// into a slot that was padding and take one away. The oracle runs every step: keep its work small.
TEST(ShippedScenarioTable, R5RowsReplayAPersistentPlanAcrossGrowingSteps) {
  bool joins_padding = false, leaves = false;
  int rows = 0;
  for (const Scenario& s : load_scenarios(std::string(MLACHECK_SCENARIO_DIR) + "/upstream.csv")) {
    if (s.upstream != "R5") continue;
    ++rows;
    EXPECT_EQ(s.caught_by, (std::vector<CatchKind>{CatchKind::comparison})) << s.id;
    const auto& p = std::get<MlaDecodeProblem>(s.problem);
    EXPECT_EQ(p.path, DecodePath::persistent) << s.id;
    ASSERT_TRUE(is_sequence(p)) << s.id;
    double flops = 0.0;
    for (int step = 0; step < p.steps; ++step) {
      for (int r = 0; r < batch(p); ++r) {
        const int q = p.q_lens[static_cast<std::size_t>(r)];
        flops += 2.0 * q * heads(p) * kv_len_at(p, r, step) * (lk(p) + p.kv_lora_rank);
        if (step > 0 && active_at(p, r, step) && !active_at(p, r, step - 1)) joins_padding = true;
        if (step > 0 && !active_at(p, r, step) && active_at(p, r, step - 1)) leaves = true;
      }
    }
    // A request active at the first two steps has grown by its q_len: the first step's plan is stale.
    bool grows = false;
    for (int r = 0; r < batch(p); ++r) grows |= active_at(p, r, 0) && active_at(p, r, 1);
    EXPECT_TRUE(grows) << s.id;
    // About 17 GFLOP/s for the Eigen oracle on one core: a few seconds at most.
    EXPECT_LT(flops, 2e10) << s.id;
  }
  EXPECT_GE(rows, 2);
  EXPECT_TRUE(joins_padding) << "no R5 row joins a request into a slot that was padding";
  EXPECT_TRUE(leaves) << "no R5 row has a request leave mid-sequence";
}

TEST(ScenarioTable, FirstBlockPlacesTheRequestsBlocks) {
  const TempTable file(kHeader + good_row(";first_block=116600"));
  const auto scenarios = load_scenarios(file.path());
  const auto& p = std::get<MlaDecodeProblem>(scenarios.at(0).problem);
  EXPECT_EQ(p.first_block, 116600);
  EXPECT_EQ(p.num_blocks, 116600 + blocks_needed(p));
  expect_error(kHeader + good_row(";first_block=-1"), 2, "case", "key 'first_block': -1 is outside [0,");
}

// Issue 13 item 3: steps, join and leave make the row a decode sequence (core/mla_sequence.hpp).
TEST(ScenarioTable, StepsJoinsAndLeavesMakeASequence) {
  const TempTable file(kHeader + good_row(";steps=6;join=0,2;leave=4,6") + good_row(";steps=3").replace(0, 2, "fixed"));
  const auto scenarios = load_scenarios(file.path());
  const auto& p = std::get<MlaDecodeProblem>(scenarios.at(0).problem);
  EXPECT_EQ(p.steps, 6);
  EXPECT_EQ(p.joins, (std::vector<int>{0, 2}));
  EXPECT_EQ(p.leaves, (std::vector<int>{4, 6}));
  EXPECT_TRUE(is_sequence(p));
  // The pool is sized for the busiest step, as a repro string's would be.
  EXPECT_EQ(p.num_blocks, sequence_peak_blocks(p));
  EXPECT_EQ(p, parse_mla_decode(to_repro(p)));
  // Empty joins and leaves: every request from the first step to the last.
  const auto& fixed = std::get<MlaDecodeProblem>(scenarios.at(1).problem);
  EXPECT_EQ(fixed.steps, 3);
  EXPECT_TRUE(fixed.joins.empty());
  EXPECT_TRUE(fixed.leaves.empty());
  // Lists of their defaults read as empty (the canonical form).
  const TempTable defaults(kHeader + good_row(";steps=4;join=0*2;leave=4,4"));
  const auto canonical = std::get<MlaDecodeProblem>(load_scenarios(defaults.path()).at(0).problem);
  EXPECT_TRUE(canonical.joins.empty());
  EXPECT_TRUE(canonical.leaves.empty());
}

TEST(MalformedScenarioTable, SequenceCellsThatDoNotParseOrDoNotFit) {
  expect_error(kHeader + good_row(";steps=x"), 2, "case", "key 'steps': 'x' is not a valid number");
  expect_error(kHeader + good_row(";steps=0"), 2, "case", "key 'steps': 0 is outside [1,");
  expect_error(kHeader + good_row(";steps=4;join=0,1x"), 2, "case", "key 'join': '1x' is not a valid number");
  expect_error(kHeader + good_row(";steps=4;leave=-1,4"), 2, "case", "key 'leave': element -1 is outside [0,");
  // Joins and leaves without steps: a one-step problem has neither.
  expect_error(kHeader + good_row(";join=0,1"), 2, "case", "join=0,1: needs steps > 1");
  expect_error(kHeader + good_row(";steps=1;leave=1,1"), 2, "case", "leave=1*2: needs steps > 1");
  // What validate_sequence refuses names its key.
  expect_error(kHeader + good_row(";steps=65"), 2, "case", "invalid mla_decode problem: steps=65");
  expect_error(kHeader + good_row(";steps=4;join=1"), 2, "case", "invalid mla_decode problem: join=1");
  expect_error(kHeader + good_row(";steps=4;join=0,5"), 2, "case", "invalid mla_decode problem: join=5");
  expect_error(kHeader + good_row(";steps=4;join=2,0;leave=1,4"), 2, "case", "invalid mla_decode problem: leave=1");
}

TEST(GoodScenarioTable, ReadsEveryColumn) {
  const std::string path = std::string(MLACHECK_SCENARIO_FIXTURES) + "/good_scenarios.csv";
  const auto scenarios = load_scenarios(path);
  ASSERT_EQ(scenarios.size(), 3u);

  const Scenario& mla = scenarios[0];
  EXPECT_EQ(mla.id, "mla_row");
  EXPECT_EQ(mla.upstream, "S4");
  EXPECT_EQ(mla.reference, "aiter issue #2720");
  EXPECT_EQ(mla.fault, Fault::non_pow2_qlen_rows_collapse);
  EXPECT_EQ(mla.caught_by, (std::vector<CatchKind>{CatchKind::comparison}));
  EXPECT_EQ(scenarios[2].caught_by, (std::vector<CatchKind>{CatchKind::comparison, CatchKind::guard}));
  EXPECT_EQ(mla.note, "a note, with a comma and \"quotes\"");
  EXPECT_EQ(mla.source, path + ":4");
  const auto& p = std::get<MlaDecodeProblem>(mla.problem);
  EXPECT_EQ(p.name, "mla_row");
  EXPECT_EQ(heads(p), 16);
  EXPECT_EQ(p.kv_lens, (std::vector<int>{1000, 1000, 7}));
  EXPECT_EQ(p.q_lens, (std::vector<int>{6, 6, 6}));
  EXPECT_EQ(p.kv_dtype, DType::fp8_e4m3fn);
  EXPECT_EQ(p.kv_scale, 0.0625f);
  EXPECT_EQ(p.o_dtype, DType::f16);
  EXPECT_EQ(p.path, DecodePath::split_kv);
  EXPECT_EQ(p.seed, 8u);
}

TEST(GoodScenarioTable, OmittedKeysTakeTheDescriptorDefaults) {
  const auto scenarios = load_scenarios(std::string(MLACHECK_SCENARIO_FIXTURES) + "/good_scenarios.csv");
  const auto& p = std::get<MlaDecodeProblem>(scenarios[1].problem);
  MlaDecodeProblem expected;
  expected.name = "defaults_row";
  expected.total_heads = 32;
  expected.kv_lens = {31};
  EXPECT_EQ(p, with_defaults(expected));
  const auto& g = std::get<KvGatherProblem>(scenarios[2].problem);
  EXPECT_EQ(g.layout, CacheLayout::shuffle);
  EXPECT_TRUE(g.interleaved);
  EXPECT_EQ(g.num_kv_heads, 4);
  EXPECT_EQ(g.head_size, 128);
  EXPECT_EQ(g.block_size, 32);
  EXPECT_EQ(g.cache_dtype, DType::fp8_e4m3fn);
  EXPECT_EQ(g.out_dtype, DType::fp8_e4m3fn);  // out_dtype omitted: the cache's
}

// Issue 27 item 4: a case is a repro string, so every field of the descriptor can be stated,
// those the named columns could not (q_scale, a fill profile, a TP rank, a split count) included.
TEST(ScenarioTable, CaseStatesAnyDescriptorField) {
  const TempTable file(kHeader +
                       "fp8q,R6,ref,Kimi-K3,title,padded-fp8-single-request,comparison,\"mla_decode:heads=96;tp=8;"
                       "rank=5;kv=700,1500;q_dtype=fp8_e4m3fn;kv_dtype=fp8_e4m3fn;q_scale=0.3;kv_scale=0.25;"
                       "splits=3;path=split_kv;profile=sink;seed=77\",note\n");
  const auto p = std::get<MlaDecodeProblem>(load_scenarios(file.path()).at(0).problem);
  EXPECT_EQ(p.name, "fp8q");
  EXPECT_EQ(p.tp_rank, 5);
  EXPECT_EQ(p.q_dtype, DType::fp8_e4m3fn);
  EXPECT_EQ(p.q_scale, 0.3f);
  EXPECT_EQ(p.kv_scale, 0.25f);
  EXPECT_EQ(p.num_splits, 3);
  EXPECT_EQ(p.profile, FillProfile::sink);
  EXPECT_EQ(p.seed, 77u);
  // The case is the repro string's: the row replays as `mlacheck run --case` with it.
  EXPECT_EQ(p, parse_mla_decode(to_repro(p)));
}

TEST(ScenarioTable, HeaderAndCellsAreTrimmed) {
  std::string header = kHeader;
  header.replace(0, 3, " id\t, ");
  const TempTable file(header + "  padded ,S4,ref,DeepSeek-V3,title,non-pow2-qlen-rows-collapse,comparison,"
                                " mla_decode:kv=9 ,note\n");
  const Scenario s = load_scenarios(file.path()).at(0);
  EXPECT_EQ(s.id, "padded");
  EXPECT_EQ(std::get<MlaDecodeProblem>(s.problem).kv_lens, (std::vector<int>{9}));
}

TEST(MalformedScenarioTable, MissingFile) {
  const TableError e = [] {
    try {
      load_scenarios("/nonexistent/upstream.csv");
    } catch (const TableError& err) {
      return err;
    }
    return TableError("", 0, "", "no error");
  }();
  EXPECT_EQ(std::string(e.what()).rfind("/nonexistent/upstream.csv: cannot open", 0), 0u) << e.what();
}

TEST(MalformedScenarioTable, EmptyFile) { expect_error("# only a comment\n", 0, "", "no header line"); }

TEST(MalformedScenarioTable, UnknownColumn) {
  std::string header = kHeader;
  header.insert(header.size() - 1, ",colour");
  expect_error(header + kGoodRow, 1, "colour", "unknown column");
}

TEST(MalformedScenarioTable, MissingColumn) {
  expect_error("# provenance\nid,upstream\nx,S1\n", 2, "reference", "missing from the header");
}

TEST(MalformedScenarioTable, RepeatedColumn) {
  std::string header = kHeader;
  header.insert(header.size() - 1, ",note");
  expect_error(header + kGoodRow, 1, "note", "named twice");
}

TEST(MalformedScenarioTable, TooFewCells) { expect_error(kHeader + kGoodRow + "short,S1,ref\n", 3, "", "fewer cells"); }

TEST(MalformedScenarioTable, TooManyCells) {
  // An unquoted case (its lists hold commas) spills into the next columns.
  std::string row = kGoodRow;
  row.erase(row.find('"'), 1);
  row.erase(row.find('"'), 1);
  expect_error(kHeader + row, 2, "", "more cells");
}

TEST(MalformedScenarioTable, UnclosedQuote) {
  std::string row = kGoodRow;
  row.erase(row.rfind('"'), 1);
  expect_error(kHeader + row, 2, "", "not closed");
}

TEST(MalformedScenarioTable, DuplicateId) {
  expect_error(kHeader + kGoodRow + "# again\n" + kGoodRow, 4, "id", "repeats the id of line 2");
}

TEST(MalformedScenarioTable, CaseFieldThatDoesNotParseNamesItsKey) {
  expect_error(kHeader + good_row_with("heads=128", "heads=12x"), 2, "case",
               "key 'heads': '12x' is not a valid number");
  expect_error(kHeader + good_row_with("kv=100,200", "kv=100,2*0"), 2, "case", "key 'kv': run count must be >= 1");
  expect_error(kHeader + good_row(";kv_scale=0.5x"), 2, "case", "key 'kv_scale': '0.5x' is not a valid number");
  expect_error(kHeader + good_row_with("split_kv", "fast"), 2, "case",
               "key 'path': 'fast' is not one of auto, persistent, split_kv");
  expect_error(kHeader + good_row_with("bs=16", "bs16"), 2, "case", "field 'bs16' is not key=value");
  expect_error(kHeader + good_row(";seed=2"), 2, "case", "key 'seed' appears more than once");
  expect_error(kHeader + good_row(";colour=red"), 2, "case", "unknown key(s) for mla_decode: 'colour'");
}

TEST(MalformedScenarioTable, CaseThatNamesItselfOrNoOperation) {
  expect_error(kHeader + good_row(";name=ok"), 2, "case", "the id column names the case");
  expect_error(kHeader + good_row_with("mla_decode:", "heads=128;"), 2, "case",
               "is not one of mla_decode, kv_gather (a case starts with op:)");
  expect_error(kHeader + "bare,S4,ref,DeepSeek-V3,title,non-pow2-qlen-rows-collapse,comparison,mla_decode,note\n", 2,
               "case", "expected it to start with 'mla_decode:'");
}

TEST(MalformedScenarioTable, UnknownFaultOrOp) {
  std::string row = kGoodRow;
  row.replace(row.find("non-pow2-qlen-rows-collapse"), 27, "rows-collapse");
  expect_error(kHeader + row, 2, "fault", "'rows-collapse' is not a fault");
  row = kGoodRow;
  row.replace(row.find("non-pow2-qlen-rows-collapse"), 27, "precision-lse-bf16");
  expect_error(kHeader + row, 2, "fault", "'precision-lse-bf16' is not an upstream fault");
  expect_error(kHeader + good_row_with("mla_decode", "mha"), 2, "case", "'mha' is not one of mla_decode, kv_gather");
}

TEST(MalformedScenarioTable, CaughtByNamesOnlyWaysToCatchAFault) {
  std::string row = kGoodRow;
  row.replace(row.find(",comparison,"), 12, ",comparison|luck,");
  expect_error(kHeader + row, 2, "caught_by", "'luck' is not a way to catch a fault");
  row = kGoodRow;
  row.replace(row.find(",comparison,"), 12, ",,");
  expect_error(kHeader + row, 2, "caught_by", "required");
}

TEST(MalformedScenarioTable, RequiredCellEmpty) {
  std::string row = kGoodRow;
  row.replace(row.find(",ref,"), 5, ",,");
  expect_error(kHeader + row, 2, "reference", "required");
}

TEST(MalformedScenarioTable, KeyOfTheOtherOp) {
  expect_error(kHeader + good_row(";layout=nhd"), 2, "case", "unknown key(s) for mla_decode: 'layout'");
  const auto gather = [](const std::string& more) {
    return "g,S7,ref,Qwen3.5,title,shuffle-gather-ignores-strides,comparison,"
           "kv_gather:layout=shuffle;interleaved=1;kv_heads=2;head_size=256;bs=32;kv=100;cache_dtype=bf16;seed=1" +
           more + ",note\n";
  };
  expect_error(kHeader + gather(";first_block=5"), 2, "case", "unknown key(s) for kv_gather: 'first_block'");
  expect_error(kHeader + gather(";steps=4"), 2, "case", "unknown key(s) for kv_gather: 'steps'");
  expect_error(kHeader + gather(";join=0"), 2, "case", "unknown key(s) for kv_gather: 'join'");
  expect_error(kHeader + gather(";leave=3"), 2, "case", "unknown key(s) for kv_gather: 'leave'");
}

TEST(MalformedScenarioTable, ProblemThatValidateRefusesNamesItsKey) {
  // 128 heads do not split over 3 ranks.
  expect_error(kHeader + good_row_with("tp=8", "tp=3"), 2, "case", "invalid mla_decode problem: tp=3");
  // More query tokens than cached ones.
  expect_error(kHeader + good_row_with("q=3,5", "q=3,500"), 2, "case", "invalid mla_decode problem: q=");
  // A scale for a bf16 cache.
  expect_error(kHeader + good_row(";kv_scale=0.5"), 2, "case", "invalid mla_decode problem: kv_scale=0.5");
  std::string row = kGoodRow;
  row.replace(0, 2, "a b");
  expect_error(kHeader + row, 2, "id", "'a b' must be 1-128 characters of [A-Za-z0-9_.-]");
  row.replace(0, 3, "a;kv=1");  // an id can never reach into the case
  expect_error(kHeader + row, 2, "id", "'a;kv=1' must be");
}

}  // namespace
}  // namespace mlacheck::scenarios
