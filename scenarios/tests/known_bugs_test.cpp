// The known-bug table: loading, matching by partial repro patterns and the other match cells, and
// that a match changes only the state (and adds the entry to the reason) of a FAILED or ERRORED row.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "scenarios/known_bugs.hpp"
#include "scenarios/table_error.hpp"
#include "scenarios/tests/temp_table.hpp"

namespace mlacheck::scenarios {
namespace {

const std::string kHeader = "id,reference,case,path,backend,platform,rank_heads,q_len,note\n";

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
  ASSERT_EQ(bugs.size(), 4u);
  EXPECT_EQ(bugs[0].id, "mi355_qlen6");
  EXPECT_EQ(bugs[0].reference, "aiter issue #2720");
  EXPECT_EQ(bugs[0].pattern.op, "mla_decode");
  EXPECT_TRUE(bugs[0].pattern.fields.empty());
  EXPECT_EQ(bugs[0].path, "split_kv");
  EXPECT_EQ(bugs[0].rank_heads, 16);
  EXPECT_EQ(bugs[0].q_len, 6);
  EXPECT_EQ(bugs[0].platform, "MI355X");
  EXPECT_EQ(bugs[1].pattern.op, "kv_gather");
  using Fields = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(bugs[1].pattern.fields, (Fields{{"cache_dtype", "fp8_e4m3fn"}}));
  EXPECT_EQ(bugs[1].backend, "hip");
  EXPECT_EQ(bugs[2].pattern.fields, (Fields{{"bs", "64"}}));
  EXPECT_FALSE(bugs[2].rank_heads.has_value());
  EXPECT_EQ(bugs[3].source, std::string(MLACHECK_SCENARIO_FIXTURES) + "/good_known_bugs.csv:6");
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
  CaseResult hip_only = mla_row("kv=100;bs=64", ResultState::failed, "");
  hip_only.backend = "plugin:libwrong.so";
  EXPECT_TRUE(matches(bugs[2], hip_only));  // no backend cell: any backend
}

// Pattern values compare as the descriptor reads them, not as text: runs and lists, number
// spellings; the other fields of the case are free.
TEST(KnownBugMatching, PatternFieldsCompareAsTheDescriptorReadsThem) {
  const KnownBug fp8_pair = fixture_bugs()[3];
  EXPECT_TRUE(matches(fp8_pair, mla_row("kv=4096,4096;kv_dtype=fp8_e4m3fn;kv_scale=0.5", ResultState::failed, "")));
  EXPECT_TRUE(matches(fp8_pair, mla_row("kv=4096*2;q=3,1;heads=64;tp=8;kv_dtype=fp8_e4m3fn;kv_scale=.5e0",
                                        ResultState::errored, "")));
  EXPECT_FALSE(matches(fp8_pair, mla_row("kv=4096*3;kv_dtype=fp8_e4m3fn;kv_scale=0.5", ResultState::failed, "")));
  EXPECT_FALSE(matches(fp8_pair, mla_row("kv=4096*2;kv_dtype=fp8_e4m3fnuz;kv_scale=0.5", ResultState::failed, "")));
  EXPECT_FALSE(matches(fp8_pair, mla_row("kv=4096*2;kv_dtype=fp8_e4m3fn;kv_scale=0.25", ResultState::failed, "")));
}

// A field the canonical string leaves out when it holds its default matches that default.
TEST(KnownBugMatching, FieldsAtTheirDefaultMatchCasesThatOmitThem) {
  const TempTable file(kHeader + "plain,,mla_decode:first_block=0;steps=1,,,,,,\n" +
                       "far,,mla_decode:first_block=5,,,,,,\n");
  const auto bugs = load_known_bugs(file.path());
  EXPECT_TRUE(matches(bugs[0], mla_row("kv=100", ResultState::failed, "")));
  EXPECT_FALSE(matches(bugs[0], mla_row("kv=100;first_block=5", ResultState::failed, "")));
  EXPECT_FALSE(matches(bugs[0], mla_row("kv=100;steps=3", ResultState::failed, "")));
  EXPECT_TRUE(matches(bugs[1], mla_row("kv=100;first_block=5", ResultState::failed, "")));
  CaseResult unparsable = mla_row("kv=100;first_block=5", ResultState::failed, "");
  unparsable.repro = "mla_decode:kv=oops";
  EXPECT_FALSE(matches(bugs[1], unparsable));
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

// An entry without a case would cover every failing case of every operation.
TEST(MalformedKnownBugTable, EntryWithoutCaseIsRefused) {
  const TempTable file(kHeader + "everything,ref,,,hip,,,,covers all\n");
  try {
    load_known_bugs(file.path());
    FAIL() << "loaded";
  } catch (const TableError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), "case");
    EXPECT_NE(std::string(e.what()).find("required"), std::string::npos) << e.what();
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
  const std::string row = "a,,mla_decode:,,,,,,\n";
  EXPECT_NE(error_of(kHeader + row + row).find(":3: column 'id': 'a' repeats the id of line 2"), std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,mla_decode:kv_dtype=fp9,,,,,,\n")
                .find(":2: column 'case': malformed repro string: key 'kv_dtype': 'fp9' is not one of"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,mla_decode:,,,,0,,\n").find(":2: column 'rank_heads': '0' must be in"),
            std::string::npos);
  EXPECT_NE(error_of(kHeader + "a,,mha:,,,,,,\n")
                .find(":2: column 'case': malformed repro string: 'mha' is not one of mla_decode, kv_gather"),
            std::string::npos);
  EXPECT_NE(error_of("id,reference,case\n").find(":1: column 'path': missing from the header"), std::string::npos);
  // A typo in the path cell would never match any row: refused with the paths there are.
  EXPECT_NE(error_of(kHeader + "a,,mla_decode:,split-kv,,,,,\n")
                .find(":2: column 'path': 'split-kv' is not a path a case takes (split_kv, persistent, gather, plugin)"),
            std::string::npos);
  for (const char* path : {"split_kv", "persistent", "gather", "plugin", ""}) {
    EXPECT_EQ(error_of(kHeader + "a,,mla_decode:," + path + ",,,,,\n"), "no error") << path;
  }
}

// A malformed pattern names its line, the case column and the key: the operation's keys and the
// values each key can hold are the repro parser's.
TEST(MalformedKnownBugTable, PatternsThatDoNotParseNameTheirKey) {
  const auto error_of = [](const std::string& pattern) {
    const TempTable file(kHeader + "a,,\"" + pattern + "\",,,,,,\n");
    try {
      load_known_bugs(file.path());
    } catch (const TableError& e) {
      EXPECT_EQ(e.line(), 2) << e.what();
      EXPECT_EQ(e.column(), "case") << e.what();
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("mla_decode:colour=red").find("unknown key(s) for mla_decode: 'colour'"), std::string::npos);
  EXPECT_NE(error_of("kv_gather:steps=2").find("unknown key(s) for kv_gather: 'steps'"), std::string::npos);
  EXPECT_NE(error_of("mla_decode:bs=x").find("key 'bs': 'x' is not a valid number"), std::string::npos);
  EXPECT_NE(error_of("mla_decode:heads=0").find("key 'heads': 0 is outside [1,"), std::string::npos);
  EXPECT_NE(error_of("mla_decode:bs=64;bs=16").find("key 'bs' appears more than once"), std::string::npos);
  EXPECT_NE(error_of("mla_decode:bs").find("field 'bs' is not key=value"), std::string::npos);
  EXPECT_NE(error_of("bs=64").find("'bs=64' is not one of mla_decode, kv_gather"), std::string::npos);
  // Values no case of the default shape has are no error: the pattern fixes them for other cases.
  EXPECT_EQ(error_of("mla_decode:tp=8;rank=7;q_scale=0.5;steps=4;join=0,2"), "no error");
}

TEST(MalformedKnownBugTable, MlaFactsOnAGatherEntryAreRefused) {
  const TempTable heads(kHeader + "g,,kv_gather:,,,,16,,\n");
  const TempTable q_len(kHeader + "g,,kv_gather:,,,,,2,\n");
  for (const auto& [file, column] : {std::pair{heads.path(), "rank_heads"}, std::pair{q_len.path(), "q_len"}}) {
    try {
      load_known_bugs(file);
      ADD_FAILURE() << "loaded " << column;
    } catch (const TableError& e) {
      EXPECT_EQ(e.column(), column) << e.what();
      EXPECT_NE(std::string(e.what()).find("op kv_gather has no such field"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace mlacheck::scenarios
