// The text rules every report format relies on: valid UTF-8 out, escapes, exact numbers.
#include "reports/report_text.hpp"

#include <gtest/gtest.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace mlacheck {
namespace {

TEST(ReportText, KeepsValidUtf8AndReplacesTheRest) {
  EXPECT_EQ(to_report_text("plain, \"quoted\"\ttab\nline"), "plain, \"quoted\"\ttab\nline");
  EXPECT_EQ(to_report_text("caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80"), "caf\xC3\xA9 \xE2\x9C\x93 \xF0\x9F\x98\x80");
  EXPECT_EQ(to_report_text("a\xFF" "b"), "a\xEF\xBF\xBD" "b");          // never UTF-8
  EXPECT_EQ(to_report_text("\xC3"), "\xEF\xBF\xBD");                     // cut sequence
  EXPECT_EQ(to_report_text("\xC0\xAF"), "\xEF\xBF\xBD\xEF\xBF\xBD");     // overlong '/'
  EXPECT_EQ(to_report_text("\xED\xA0\x80").substr(0, 3), "\xEF\xBF\xBD");  // surrogate
  EXPECT_EQ(to_report_text(std::string("a\0b\x1b", 4)), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");  // XML forbids them
}

TEST(ReportText, FindsTheFirstBadByte) {
  EXPECT_FALSE(first_invalid_utf8("ok \xC3\xA9\n").has_value());
  EXPECT_EQ(first_invalid_utf8("ok\xFE"), 2u);
  EXPECT_EQ(first_invalid_utf8(std::string("ab\0", 3)), 2u);
}

TEST(ReportText, EscapesMarkupIncludingQuotesAndLineBreaks) {
  EXPECT_EQ(markup_escape("<a href=\"x\">&'\n\r"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&#10;&#13;");
  EXPECT_EQ(markup_escape("bad\x01"), "bad\xEF\xBF\xBD");
}

TEST(ReportText, NumbersReadBackExactly) {
  for (double v : {0.0, 1.0, 0.1, 1e-300, 6.103515625e-05, 123456.789, -2.5e17}) {
    const std::string s = format_number(v);
    double back = 0;
    std::from_chars(s.data(), s.data() + s.size(), back);
    EXPECT_EQ(back, v) << s;
  }
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(format_number(std::numeric_limits<double>::quiet_NaN()), "nan");
}

}  // namespace
}  // namespace mlacheck
