// mlacheck diff's rules: which state changes regress, error growth beyond the factor (NaN and
// zero baselines included), cases in one report only; and the committed fixtures end to end.
#include "reports/report_diff.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "reports/csv_reader.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

using test::mla_row;

CaseResult row(const std::string& id, ResultState s, double err = 1e-3) {
  return mla_row(id, s, 100, DType::bf16, "split_kv", err);
}

TEST(ReportDiff, StateChangesThatRegress) {
  struct Case {
    ResultState base, now;
    bool regression;
  };
  using S = ResultState;
  for (const Case& c : {Case{S::passed, S::failed, true}, Case{S::passed, S::errored, true},
                        Case{S::passed, S::skipped, true}, Case{S::passed, S::known_bug, true},
                        Case{S::passed, S::mistrusted, true}, Case{S::skipped, S::failed, true},
                        Case{S::known_bug, S::errored, true}, Case{S::failed, S::passed, false},
                        Case{S::skipped, S::passed, false}, Case{S::failed, S::errored, false},
                        Case{S::skipped, S::mistrusted, false}}) {
    const ReportDiff d = diff_reports(std::vector{row("a", c.base)}, std::vector{row("a", c.now)}, 2.0);
    ASSERT_EQ(d.state_changes.size(), 1u);
    EXPECT_EQ(d.state_changes[0].regression, c.regression) << to_string(c.base) << " -> " << to_string(c.now);
    EXPECT_EQ(d.regressed_cases(), c.regression ? 1u : 0u);
  }
}

TEST(ReportDiff, ErrorGrowthBeyondTheFactor) {
  const auto growth = [](double base, double now, double factor = 2.0) {
    CaseResult b = row("a", ResultState::passed), n = row("a", ResultState::passed);
    b.tensors[0].stats.rms_rel_err = base;
    n.tensors[0].stats.rms_rel_err = now;
    std::vector<std::string> metrics;
    for (const ErrorGrowth& g : diff_reports(std::vector{b}, std::vector{n}, factor).growths) metrics.push_back(g.metric);
    return metrics;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(growth(1e-3, 2e-3), std::vector<std::string>{});  // exactly 2x is not beyond 2x
  EXPECT_EQ(growth(1e-3, 2.1e-3), std::vector<std::string>{"o_rms_rel_err"});
  EXPECT_EQ(growth(1e-3, 1.5e-3, 1.25), std::vector<std::string>{"o_rms_rel_err"});
  EXPECT_EQ(growth(1e-3, 1e-5), std::vector<std::string>{});
  EXPECT_EQ(growth(0.0, 1e-30), std::vector<std::string>{"o_rms_rel_err"});  // exact must stay exact
  EXPECT_EQ(growth(0.0, 0.0), std::vector<std::string>{});
  EXPECT_EQ(growth(1e-3, nan), std::vector<std::string>{"o_rms_rel_err"});
  EXPECT_EQ(growth(nan, 1.0), std::vector<std::string>{});
}

TEST(ReportDiff, LseAndGatherTensorsAreComparedToo) {
  CaseResult b = row("a", ResultState::passed), n = row("a", ResultState::passed);
  n.tensors[1].stats.max_abs_err = b.tensors[1].stats.max_abs_err * 3;
  CaseResult gb = test::gather_row("g", ResultState::passed, CacheLayout::nhd, false), gn = gb;
  gn.tensors[1].stats.max_abs_err = 1e-3;  // V was bitwise exact
  const ReportDiff d = diff_reports(std::vector{b, gb}, std::vector{n, gn}, 2.0);
  ASSERT_EQ(d.growths.size(), 2u);
  EXPECT_EQ(d.growths[0].metric, "lse_max_abs_err");
  EXPECT_EQ(d.growths[1].metric, "v_max_abs_err");
  EXPECT_EQ(d.regressed_cases(), 2u);
}

TEST(ReportDiff, ACaseMissingFromTheNewReportIsARegressionANewCaseIsNot) {
  const ReportDiff d = diff_reports(std::vector{row("a", ResultState::passed), row("gone", ResultState::passed)},
                                    std::vector{row("a", ResultState::passed), row("new", ResultState::failed)}, 2.0);
  EXPECT_EQ(d.common, 1u);
  EXPECT_EQ(d.only_in_base, std::vector<std::string>{"gone"});
  EXPECT_EQ(d.only_in_new, std::vector<std::string>{"new"});
  EXPECT_EQ(d.regressed_cases(), 1u);
  const std::string text = format_diff(d, "b", "n");
  EXPECT_NE(text.find("missing from new (1):\n  REGRESSION  gone\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n1 regressed cases: 0 of 1 in both reports, 1 missing from the new report\n"), std::string::npos)
      << text;
  EXPECT_EQ(diff_reports(std::vector{row("a", ResultState::passed)},
                         std::vector{row("a", ResultState::passed), row("new", ResultState::passed)}, 2.0)
                .regressed_cases(),
            0u);
}

TEST(ReportDiff, TheCommittedFixturesListEveryRegressionWithItsRepro) {
  const CsvReport base = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/base.csv");
  const CsvReport now = read_csv_report(MLACHECK_SOURCE_DIR "/reports/tests/data/regressed.csv");
  const ReportDiff d = diff_reports(base.rows, now.rows, 2.0);
  const std::string text = format_diff(d, "base.csv", "regressed.csv");
  EXPECT_NE(text.find("  REGRESSION  dsv3.mtp.1.persistent: PASSED -> FAILED (O: 17 of 4096 elements outside tolerance)\n"
                      "              repro: mla_decode:name=dsv3.mtp.1.persistent;"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("error growth beyond 2x (2 cases):\n"
                      "  REGRESSION  dsv3.decode.0.split_kv\n"
                      "              o_max_abs_err 0.009 -> 0.021 (2.33x)\n"
                      "              o_rms_rel_err 0.003 -> 0.007 (2.33x)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("kimi.bs1.2.split_kv:"), std::string::npos);  // 1.5x is within the factor
  EXPECT_NE(text.find("missing from new (1):\n  REGRESSION  mistral.decode.4.persistent\n"), std::string::npos);
  EXPECT_NE(text.find("only in new (1):\n  k3.decode.5.split_kv\n"), std::string::npos);
  EXPECT_NE(text.find("\n3 regressed cases: 2 of 4 in both reports, 1 missing from the new report\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(diff_reports(base.rows, base.rows, 2.0).regressed_cases(), 0u);
}

}  // namespace
}  // namespace mlacheck
