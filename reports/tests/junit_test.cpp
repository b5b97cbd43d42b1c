// junit.xml: one testcase per case, states mapped only through junit_kind(), counts that match,
// escaping that survives any reason, and validity against the common schema (with xmllint).
#include "reports/junit_writer.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "reports/report_error.hpp"
#include "reports/tests/sample_rows.hpp"

namespace mlacheck {
namespace {

using test::mla_row;

std::vector<CaseResult> one_row_per_state() {
  std::vector<CaseResult> rows;
  for (ResultState s : {ResultState::passed, ResultState::failed, ResultState::errored, ResultState::skipped,
                        ResultState::mistrusted, ResultState::known_bug}) {
    CaseResult r = mla_row("case." + std::string(to_string(s)), ResultState::passed, 100, DType::bf16, "split_kv", 1e-3);
    r.state = s;
    if (s != ResultState::passed) r.reason = "why " + std::string(to_string(s));
    rows.push_back(r);
  }
  return rows;
}

std::string junit_of(const std::vector<CaseResult>& rows) {
  std::ostringstream out;
  write_junit(out, rows);
  return out.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The body of the testcase named `id`, from its start tag to its end tag.
std::string testcase(const std::string& xml, const std::string& id) {
  const std::size_t start = xml.find("name=\"" + id + "\"");
  return xml.substr(start, xml.find("</testcase>", start) - start);
}

TEST(JUnit, EachStateMapsThroughJunitKindAlone) {
  const std::vector<CaseResult> rows = one_row_per_state();
  const std::string xml = junit_of(rows);
  EXPECT_EQ(count(xml, "<testcase "), rows.size());
  for (const CaseResult& r : rows) {
    const std::string body = testcase(xml, r.id);
    const JUnitKind kind = junit_kind(r.state);
    EXPECT_EQ(count(body, "<failure "), kind == JUnitKind::failure ? 1u : 0u) << r.id;
    EXPECT_EQ(count(body, "<error "), kind == JUnitKind::error ? 1u : 0u) << r.id;
    EXPECT_EQ(count(body, "<skipped "), kind == JUnitKind::skipped ? 1u : 0u) << r.id;
    EXPECT_NE(body.find("<system-out>repro: " + r.repro), std::string::npos) << r.id;
  }
  EXPECT_NE(testcase(xml, "case.KNOWN_BUG").find("<skipped message=\"KNOWN_BUG: why KNOWN_BUG\"/>"), std::string::npos);
  // A SKIPPED case was not checked; the message says so (MISTRUSTED and KNOWN_BUG were checked).
  EXPECT_NE(testcase(xml, "case.SKIPPED").find("<skipped message=\"SKIPPED (not checked): why SKIPPED\"/>"),
            std::string::npos);
  EXPECT_NE(testcase(xml, "case.FAILED").find("<failure message=\"why FAILED\" type=\"FAILED\">why FAILED&#10;repro: "),
            std::string::npos);
  EXPECT_NE(testcase(xml, "case.ERRORED").find("<error message=\"why ERRORED\" type=\"ERRORED\">"), std::string::npos);
  // A typed kind is the type attribute, the state's name only where none was recorded.
  std::vector<CaseResult> kinds = one_row_per_state();
  for (CaseResult& r : kinds) {
    if (r.state == ResultState::failed) r.fail_kind = FailKind::refused_curated;
    if (r.state == ResultState::errored) r.error_kind = ErrorKind::timed_out;
    if (r.state == ResultState::skipped) r.skip_reason = SkipReason::not_enough_memory;
  }
  const std::string typed = junit_of(kinds);
  EXPECT_NE(testcase(typed, "case.FAILED").find("<failure message=\"why FAILED\" type=\"refused_curated\">"),
            std::string::npos);
  EXPECT_NE(testcase(typed, "case.ERRORED").find("<error message=\"why ERRORED\" type=\"timed_out\">"),
            std::string::npos);
  EXPECT_NE(testcase(typed, "case.SKIPPED").find("skip_reason: not_enough_memory"), std::string::npos);
  EXPECT_NE(testcase(typed, "case.FAILED").find("caught_by: refusal"), std::string::npos);
}

TEST(JUnit, SuiteCountsAndTimeAddUp) {
  const std::string xml = junit_of(one_row_per_state());  // 6 cases of 20.0625 ms
  const std::string counts = "tests=\"6\" failures=\"1\" errors=\"1\" skipped=\"3\" time=\"0.120\"";
  EXPECT_NE(xml.find("<testsuites name=\"mlacheck\" " + counts + ">"), std::string::npos) << xml.substr(0, 300);
  EXPECT_NE(xml.find("<testsuite name=\"mlacheck\" " + counts + ">"), std::string::npos);
  EXPECT_NE(xml.find("<testcase classname=\"mla_decode.hip\" name=\"case.PASSED\" time=\"0.020\">"), std::string::npos);
}

TEST(JUnit, MetricsGoToSystemOut) {
  const std::string body = testcase(junit_of(one_row_per_state()), "case.PASSED");
  EXPECT_NE(body.find("O: max_abs_err=0.003 max_rel_err=0.01 rms_rel_err=0.001 cosine=0.9999995 mismatches=0/4096"),
            std::string::npos)
      << body;
  EXPECT_NE(body.find("tolerance: abs=0.001 rel=0.01 rms=0.01 (bf16 out, fp32 acc, n=4096)"), std::string::npos);
}

TEST(JUnit, AnyReasonIsEscaped) {
  CaseResult r = mla_row("a<b>&\"c\"", ResultState::failed, 100, DType::bf16, "split_kv", 1.0);
  r.reason = "x < 1 && y > 2, 'q' \"r\" ]]> line\nbreak \x01 \xFF";
  const std::string xml = junit_of({r});
  EXPECT_NE(xml.find("name=\"a&lt;b&gt;&amp;&quot;c&quot;\""), std::string::npos);
  EXPECT_NE(xml.find("message=\"x &lt; 1 &amp;&amp; y &gt; 2, &#39;q&#39; &quot;r&quot; ]]&gt; line&#10;break \xEF\xBF\xBD \xEF\xBF\xBD\""),
            std::string::npos)
      << xml;
}

TEST(JUnit, UnwritablePathIsAClearError) {
  EXPECT_THROW(write_junit_file("/nonexistent-folder/junit.xml", one_row_per_state()), ReportError);
}

TEST(JUnit, ValidAgainstTheCommonSchema) {
  if (std::system("command -v xmllint > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "xmllint not installed (scripts/install-deps.sh installs libxml2-utils)";
  }
  test::ScratchDir dir;
  std::vector<CaseResult> rows = one_row_per_state();
  rows.push_back(mla_row("awkward", ResultState::failed, 9, DType::bf16, "split_kv", 1.0));
  rows.back().reason = "x < 1 && ]]> \"q\"\n\x01";
  rows.push_back(test::gather_row("gather", ResultState::passed, CacheLayout::shuffle, false));
  write_junit_file(dir.file("junit.xml"), rows);
  const std::string cmd = "xmllint --noout --schema " MLACHECK_SOURCE_DIR "/reports/tests/junit-common.xsd " +
                          dir.file("junit.xml") + " 2>" + dir.file("xmllint.log");
  const int rc = std::system(cmd.c_str());
  std::ifstream log(dir.file("xmllint.log"));
  std::stringstream text;
  text << log.rdbuf();
  EXPECT_EQ(rc, 0) << text.str();
}

}  // namespace
}  // namespace mlacheck
