// The known-bug table: loading, partial matching, and that a match changes only the state (and
// adds the entry to the reason) of a FAILED or ERRORED row.
#include <gtest/gtest.h>

#include <string>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "scenarios/known_bugs.hpp"
#include "scenarios/table_error.hpp"
#include "scenarios/tests/temp_table.hpp"

namespace mlacheck::scenarios {
namespace {

const std::string kHeader = "id,reference,op,path,kv_dtype,heads,q_len,backend,platform,repro,note\n";

std::vector<KnownBug> fixture_bugs() {
  return load_known_bugs(std::string(MLACHECK_SCENARIO_FIXTURES) + "/good_known_bugs.csv");
}

CaseResult mla_row(const std::string& repro_tail, ResultState state, const std::string& device) {
  CaseResult row;
  row.op = "mla_decode";
  row.repro = to_repro(parse_mla_decode("mla_decode:name=r;" + repro_tail));
  row.backend = "hip";
  row.device = device;
  row.path = "split_kv";
  row.state = state;
  row.reason = "O: 12 of 4096 elements outside tolerance";
  return row;
}

TEST(KnownBugTable, ShippedTableLoads) {
  EXPECT_NO_THROW(load_known_bugs(std::string(MLACHECK_SCENARIO_DIR) + "/known_bugs.csv"));
}

TEST(KnownBugTable, FixtureLoadsEveryField) {
  const auto bugs = fixture_bugs();
  ASSERT_EQ(bugs.size(), 3u);
  EXPECT_EQ(bugs[0].id, "mi355_qlen6");
  EXPECT_EQ(bugs[0].reference, "aiter issue #2720");
  EXPECT_EQ(bugs[0].op, "mla_decode");
  EXPECT_EQ(bugs[0].path, "split_kv");
  EXPECT_EQ(bugs[0].heads, 16);
  EXPECT_EQ(bugs[0].q_len, 6);
  EXPECT_EQ(bugs[0].platform, "MI355X");
  EXPECT_FALSE(bugs[0].kv_dtype.has_value());
  EXPECT_EQ(bugs[1].kv_dtype, DType::fp8_e4m3fn);
  EXPECT_EQ(bugs[2].repro, "bs=64;");
}

TEST(KnownBugMatching, EveryNonEmptyFieldMustMatch) {
  const auto bugs = fixture_bugs();
  const KnownBug& mi355 = bugs[0];
  const std::string qlen6 = "heads=128;tp=8;kv=100,200;q=6,1";
  EXPECT_TRUE(matches(mi355, mla_row(qlen6, ResultState::failed, "AMD Instinct MI355X (gfx950)")));
  EXPECT_FALSE(matches(mi355, mla_row(qlen6, ResultState::failed, "NVIDIA H100 80GB HBM3 (sm_90)")));  // platform
  EXPECT_FALSE(matches(mi355, mla_row("heads=128;tp=8;kv=100,200;q=5,1", ResultState::failed, "MI355X")));  // q_len
  EXPECT_FALSE(matches(mi355, mla_row("heads=128;tp=4;kv=100,200;q=6,1", ResultState::failed, "MI355X")));  // heads
  CaseResult persistent = mla_row(qlen6, ResultState::failed, "MI355X");
  persistent.path = "persistent";
  EXPECT_FALSE(matches(mi355, persistent));
  EXPECT_TRUE(matches(bugs[2], mla_row("kv=100;bs=64", ResultState::failed, "")));
  EXPECT_FALSE(matches(bugs[2], mla_row("kv=100;bs=16", ResultState::failed, "")));
  EXPECT_FALSE(matches(bugs[1], mla_row("kv=100;kv_dtype=fp8_e4m3fn", ResultState::failed, "")));  // op
}

TEST(KnownBugMatching, GatherRowsMatchTheirCacheDtypeAndKvHeads) {
  const auto bugs = fixture_bugs();
  CaseResult row;
  row.op = "kv_gather";
  row.backend = "hip";
  row.path = "gather";
  row.state = ResultState::errored;
  row.repro = to_repro(parse_kv_gather("kv_gather:name=g;kv=10;cache_dtype=fp8_e4m3fn;out_dtype=bf16"));
  EXPECT_TRUE(matches(bugs[1], row));
  row.repro = to_repro(parse_kv_gather("kv_gather:name=g;kv=10"));
  EXPECT_FALSE(matches(bugs[1], row));
}

TEST(KnownBugMatching, OnlyFailuresBecomeKnownBugsAndKeepTheirData) {
  const auto bugs = fixture_bugs();
  CaseResult failed = mla_row("kv=100;bs=64", ResultState::failed, "");
  const CaseResult before = failed;
  ASSERT_TRUE(apply_known_bugs(bugs, failed));
  EXPECT_EQ(failed.state, ResultState::known_bug);
  EXPECT_EQ(failed.reason, "known bug bs64: " + before.reason);
  EXPECT_EQ(failed.repro, before.repro);
  EXPECT_EQ(failed.tensors.size(), before.tensors.size());

  CaseResult passed = mla_row("kv=100;bs=64", ResultState::passed, "");
  passed.reason.clear();
  EXPECT_FALSE(apply_known_bugs(bugs, passed));
  EXPECT_EQ(passed.state, ResultState::passed);
  CaseResult skipped = mla_row("kv=100;bs=64", ResultState::skipped, "");
  EXPECT_FALSE(apply_known_bugs(bugs, skipped));
  EXPECT_EQ(skipped.state, ResultState::skipped);
}

TEST(MalformedKnownBugTable, EntryWithoutMatchFieldIsRefused) {
  const TempTable file(kHeader + "everything,ref,,,,,,,,,covers all\n");
  try {
    load_known_bugs(file.path());
    FAIL() << "loaded";
  } catch (const TableError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("no match field"), std::string::npos) << e.what();
  }
}

TEST(MalformedKnownBugTable, DuplicateIdAndBadCellsNameTheirPlace) {
  const auto error_of = [](const std::string& text) {
    const TempTable file(text);
    try {
      load_known_bugs(file.path());
    } catch (const TableError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string row = "a,,mla_decode,,,,,,,,\n";
  EXPECT_NE(error_of(kHeader + row + row).find(":3: column 'id': 'a' repeats the id of line 2"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,,,fp9,,,,,,\n").find(":2: column 'kv_dtype': 'fp9' is not a dtype"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,,,,0,,,,,\n").find(":2: column 'heads': '0' must be in"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,mha,,,,,,,,\n").find(":2: column 'op': 'mha'"), std::string::npos);
  EXPECT_NE(error_of("id,reference,op\n").find(":1: column 'path': missing from the header"), std::string::npos);
}

}  // namespace
}  // namespace mlacheck::scenarios
