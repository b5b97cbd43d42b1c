// report.html: the expected sections in order, their row counts, the plots' marks, escaping, and
// a page that needs nothing from outside itself.
#include "reports/html_report.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "reports/case_facets.hpp"
#include "reports/report_error.hpp"
#include "reports/tests/html_scan.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

using test::count_named;
using test::gather_row;
using test::mla_row;
using test::scan_tags;
using test::tags_in_section;

std::vector<CaseResult> a_run() {
  std::vector<CaseResult> rows;
  int i = 0;
  for (DType dtype : {DType::bf16, DType::fp8_e4m3fn}) {
    for (int kv : {1, 17, 1000, 4097}) {
      for (const char* path : {"split_kv", "persistent"}) {
        rows.push_back(mla_row("case" + std::to_string(i++), ResultState::passed, kv, dtype, path, 1e-4 * kv));
      }
    }
  }
  rows.push_back(mla_row("bad", ResultState::failed, 4097, DType::bf16, "persistent", 0.3));
  rows.push_back(mla_row("crash", ResultState::errored, 100, DType::f16, "", 0));
  rows.push_back(mla_row("nogpu", ResultState::skipped, 100, DType::f16, "", 0));
  rows.push_back(gather_row("gather0", ResultState::passed, CacheLayout::shuffle, true));
  CaseResult odd = mla_row("<script>alert(1)</script>", ResultState::mistrusted, 5, DType::bf16, "split_kv", 0);
  odd.reason = "reference has zero norm & \"constant\" <output>";
  rows.push_back(odd);
  CaseResult foreign = mla_row("foreign", ResultState::passed, 5, DType::bf16, "split_kv", 1e-3);
  foreign.repro = "not a repro of ours";
  rows.push_back(foreign);
  return rows;
}

KillMatrixGrid a_kill_matrix() {
  KillMatrixGrid m;
  m.scenarios = {"S1.heads_below_16", "S2.block_table", "S3.qo_indptr"};
  m.faults = {"none", "pad_heads_unpadded", "block_table_unexpanded"};
  m.cells = {{ResultState::passed, ResultState::failed, ResultState::passed},
             {ResultState::passed, ResultState::passed, ResultState::errored},
             {ResultState::passed, std::nullopt, ResultState::passed}};
  m.intended = {1, 2, -1};
  return m;
}

std::string html_of(const std::vector<CaseResult>& rows, std::optional<KillMatrixGrid> kill = std::nullopt) {
  std::ostringstream out;
  HtmlReportOptions options;
  options.kill_matrix = std::move(kill);
  write_html(out, rows, options);
  return out.str();
}

std::vector<std::string> section_ids(const std::vector<test::Tag>& tags) {
  std::vector<std::string> ids;
  for (const test::Tag& t : tags) {
    if (t.name == "section") ids.push_back(t.attrs.at("id"));
  }
  return ids;
}

TEST(HtmlReport, HasTheExpectedSectionsInOrder) {
  const auto tags = scan_tags(html_of(a_run()));
  EXPECT_EQ(section_ids(tags), (std::vector<std::string>{"summary", "worst-cases", "categories", "error-vs-kv-len",
                                                         "error-histogram", "bound-used", "coverage", "all-cases"}));
  const auto with_kill = scan_tags(html_of(a_run(), a_kill_matrix()));
  EXPECT_EQ(section_ids(with_kill)[7], "kill-matrix");
}

TEST(HtmlReport, TablesHoldOneRowPerThing) {
  const std::vector<CaseResult> rows = a_run();
  const auto tags = scan_tags(html_of(rows, a_kill_matrix()));
  EXPECT_EQ(count_named(tags_in_section(tags, "summary"), "tr"), 1u + 6u);  // header + one per state
  EXPECT_EQ(count_named(tags_in_section(tags, "all-cases"), "tr"), 1u + rows.size());
  // Worst cases: failed and errored first, then every row with some error (not the exact gather or the zero-error one).
  const auto worst = tags_in_section(tags, "worst-cases");
  EXPECT_EQ(count_named(worst, "tr"), 1u + 2u + 16u + 1u);
  EXPECT_EQ(count_named(tags_in_section(tags, "kill-matrix"), "tr"), 1u + 3u);
  std::size_t intended = 0;
  for (const test::Tag& t : tags_in_section(tags, "kill-matrix")) intended += t.attrs.count("class") && t.attrs.at("class") == "intended";
  EXPECT_EQ(intended, 2u);
  EXPECT_EQ(count_named(tags_in_section(tags, "coverage"), "tr"), 1u + coverage_buckets().size());
}

TEST(HtmlReport, TheSummaryCountsSkippedCasesAsNotChecked) {
  const std::vector<CaseResult> rows = a_run();  // two failing (bad, crash), one SKIPPED (nogpu)
  const std::string html = html_of(rows);
  EXPECT_NE(html.find(std::to_string(rows.size()) + " cases, 2 FAILED or ERRORED, 1 not checked (SKIPPED);"),
            std::string::npos);
}

TEST(HtmlReport, NamesEachGpuByIndexAndBusIdBesideItsName) {
  std::vector<CaseResult> rows = a_run();
  CaseResult other = mla_row("on-gpu-3", ResultState::passed, 17, DType::bf16, "split_kv", 1e-4);
  other.device_index = 3;
  other.device_pci_bus_id = "0000:c1:00.0";
  rows.push_back(other);
  const std::string html = html_of(rows);
  const std::size_t summary = html.find("<section id=\"summary\">");
  const std::size_t categories = html.find("<section id=\"categories\">");
  for (const char* label : {"NVIDIA H100 80GB HBM3 (sm_90) [GPU 1, 0000:2a:00.0]",
                            "NVIDIA H100 80GB HBM3 (sm_90) [GPU 3, 0000:c1:00.0]"}) {
    const std::size_t in_summary = html.find(label, summary);
    EXPECT_LT(in_summary, categories) << label;
    EXPECT_NE(html.find(label, categories), std::string::npos) << label;
  }
}

TEST(HtmlReport, WorstCasesStartWithFailuresAndShowRepros) {
  const std::string html = html_of(a_run());
  const std::size_t worst = html.find("<section id=\"worst-cases\">");
  const std::size_t bad = html.find(">bad<", worst), crash = html.find(">crash<", worst);
  const std::size_t first_passed = html.find(">case", worst);
  EXPECT_LT(bad, first_passed);
  EXPECT_LT(crash, first_passed);
  EXPECT_NE(html.find("<code>mla_decode:name=bad;", worst), std::string::npos);
}

TEST(HtmlReport, PlotsHaveAMarkPerComparedCase) {
  const auto tags = scan_tags(html_of(a_run()));
  const auto scatter = tags_in_section(tags, "error-vs-kv-len");
  EXPECT_EQ(count_named(scatter, "svg"), 2u);  // cache bf16 (the gather's too) and fp8_e4m3fn
  // 16 + bad + gather; not the rows whose repro does not parse (the foreign one, and the
  // "<script>" id, which no descriptor accepts as a name).
  EXPECT_EQ(count_named(scatter, "circle"), 18u);
  const auto histogram = tags_in_section(tags, "error-histogram");
  EXPECT_EQ(count_named(histogram, "svg"), 1u);
  EXPECT_GE(count_named(histogram, "rect"), 4u);
  EXPECT_EQ(count_named(tags_in_section(tags, "coverage"), "svg"), 1u);
}

TEST(HtmlReport, NeedsNothingFromOutside) {
  const std::string html = html_of(a_run(), a_kill_matrix());
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  for (const test::Tag& t : scan_tags(html)) {
    EXPECT_NE(t.name, "script");
    EXPECT_NE(t.name, "link");
    EXPECT_NE(t.name, "img");
    EXPECT_EQ(t.attrs.count("src"), 0u) << t.name;
    EXPECT_EQ(t.attrs.count("href"), 0u) << t.name;
  }
}

TEST(HtmlReport, EscapesCaseText) {
  const std::string html = html_of(a_run());
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("reference has zero norm &amp; &quot;constant&quot; &lt;output&gt;"), std::string::npos);
}

TEST(HtmlReport, AnEmptyRunStillRendersEverySection) {
  const auto tags = scan_tags(html_of({}));
  EXPECT_EQ(section_ids(tags).size(), 8u);
  EXPECT_EQ(count_named(tags_in_section(tags, "all-cases"), "tr"), 1u);
  EXPECT_EQ(count_named(tags_in_section(tags, "error-vs-kv-len"), "svg"), 0u);
}

TEST(HtmlReport, CoverageMarksBucketsNoCaseReached) {
  const auto tags = scan_tags(html_of(a_run()));
  std::vector<std::string> gaps;
  const auto coverage = tags_in_section(tags, "coverage");
  std::size_t gap_rows = 0;
  for (const test::Tag& t : coverage) gap_rows += t.name == "tr" && t.attrs.count("class") && t.attrs.at("class") == "gap";
  // The sample run has no TP > 1, no block size other than 16, no NHD layout, ...; it has q_len 3 (non-pow2), SHUFFLE.
  EXPECT_GT(gap_rows, 5u);
  EXPECT_LT(gap_rows, coverage_buckets().size());
}

// Issue 36: the production factor coverage, when the run measured it, is a section of its own
// listing each value with its count and every combination no case holds.
TEST(HtmlReport, FactorCoverageListsValuesAndUncoveredCombinations) {
  FactorCoverageGrid g;
  g.table = "plan/production_factors.csv";
  g.strength = 3;
  g.combinations = 10;
  g.uncovered = {"heads=8 q_dtype=f16 q_len=>8", "heads=4 path=auto sequence=yes"};
  g.values = {{"heads", "8", 3, "Kimi-K2/K2.5 TP8: S2"}, {"heads", "4", 0, "DeepSeek-V2-Lite TP4"}};
  std::ostringstream out;
  HtmlReportOptions options;
  options.factor_coverage = g;
  write_html(out, a_run(), options);
  const std::string html = out.str();
  const auto tags = scan_tags(html);
  const std::vector<std::string> ids = section_ids(tags);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "factor-coverage"), ids.end());
  EXPECT_EQ(count_named(tags_in_section(tags, "factor-coverage"), "tr"), 1u + 2u);
  EXPECT_EQ(count_named(tags_in_section(tags, "factor-coverage"), "li"), 2u);
  EXPECT_NE(html.find("8 of 10 held by some case; uncovered: 2."), std::string::npos);
  EXPECT_NE(html.find("heads=8 q_dtype=f16 q_len=&gt;8"), std::string::npos);
  EXPECT_EQ(section_ids(scan_tags(html_of(a_run()))).size(), 8u);  // absent unless given
}

TEST(HtmlReport, FacetsComeFromTheRepro) {
  const CaseFacets f = facets_of(mla_row("x", ResultState::passed, 4097, DType::fp8_e4m3fn, "persistent", 1e-3));
  EXPECT_TRUE(f.parsed);
  EXPECT_EQ(f.dtype, "fp8_e4m3fn");
  EXPECT_EQ(f.kv_len, 4097);
  EXPECT_EQ(f.q_len, 3);
  EXPECT_EQ(f.heads, 16);
  const auto has = [&](const char* b) { return std::find(f.buckets.begin(), f.buckets.end(), b) != f.buckets.end(); };
  EXPECT_TRUE(has("q_len not a power of two"));
  EXPECT_TRUE(has("mixed q_len in a batch"));
  EXPECT_TRUE(has("fp8 dequantisation"));
  EXPECT_TRUE(has("path persistent"));
  EXPECT_FALSE(has("heads < 16"));
  CaseResult foreign = mla_row("y", ResultState::passed, 5, DType::bf16, "split_kv", 1e-3);
  foreign.repro = "mla_decode:heads=banana";
  EXPECT_FALSE(facets_of(foreign).parsed);
}

TEST(HtmlReport, UnwritablePathIsAClearError) {
  EXPECT_THROW(write_html_file("/nonexistent-folder/report.html", a_run(), {}), ReportError);
}

}  // namespace
}  // namespace mlacheck

namespace mlacheck {
namespace {

TEST(HtmlReport, BoundUsedHistogramCountsPassedCasesPerHalfDecade) {
  // O's tol_rms is 1e-2 (sample_rows.hpp), so an rms_rel_err of e uses e/1e-2 of it; LSE's is e/4.
  std::vector<CaseResult> rows;
  for (double e : {0.0, 5e-7, 2e-6, 5e-6, 5e-6, 9.9e-3}) {
    rows.push_back(
        test::mla_row("p" + std::to_string(rows.size()), ResultState::passed, 17, DType::bf16, "split_kv", e));
  }
  rows.push_back(test::mla_row("bad", ResultState::failed, 17, DType::bf16, "split_kv", 0.5));  // not correct
  rows.push_back(test::mla_row("skip", ResultState::skipped, 17, DType::bf16, "split_kv", 0.0));
  const BoundUsedHistogram h = bound_used_histogram(rows);
  EXPECT_EQ(h.bins,
            (std::vector<std::string>{"0", "<1e-4", "1e-4", "3e-4", "1e-3", "3e-3", "1e-2", "3e-2", "1e-1", "3e-1"}));
  ASSERT_EQ(h.tensors.size(), 2u);
  EXPECT_EQ(h.tensors[0].first, "O rms");
  EXPECT_EQ(h.tensors[0].second, (std::vector<double>{1, 1, 1, 2, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(h.tensors[1].first, "LSE rms");  // ratios 0, 1.25e-5, 5e-5, 1.25e-4 twice, 0.2475
  EXPECT_EQ(h.tensors[1].second, (std::vector<double>{1, 2, 2, 0, 0, 0, 0, 0, 1, 0}));

  // The run's one-line summary: the worst tensor of each of the 6 passed rows (O: 0, 5e-5, 2e-4,
  // 5e-4, 5e-4, 0.99).
  const BoundUsedSummary summary = bound_used_summary(rows);
  EXPECT_EQ(summary.cases, 6u);
  EXPECT_DOUBLE_EQ(summary.median, 2e-6 / 1e-2);
  EXPECT_DOUBLE_EQ(summary.p90, 9.9e-3 / 1e-2);
  EXPECT_DOUBLE_EQ(summary.max, 9.9e-3 / 1e-2);

  // The section draws one bar per non-empty (tensor, bin) pair of the passed cases.
  std::ostringstream out;
  write_html(out, rows, {});
  const auto tags = test::scan_tags(out.str());
  const auto section = test::tags_in_section(tags, "bound-used");
  EXPECT_EQ(test::count_named(section, "svg"), 1u);
  EXPECT_GE(test::count_named(section, "rect"), 5u + 4u);
}

}  // namespace
}  // namespace mlacheck
