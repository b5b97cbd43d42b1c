#pragma once
// Text rules shared by every report format. Reasons and device names come from drivers and
// exceptions, so they may hold anything; the reports must stay valid UTF-8 (pandas and browsers
// read them as such) and valid XML 1.0, which forbids most control characters outright.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mlacheck {

// `text` with each invalid UTF-8 sequence and each control character other than tab, line feed
// and carriage return replaced by U+FFFD.
std::string to_report_text(std::string_view text);

// Offset of the first byte that makes `text` invalid UTF-8 or is a NUL; nullopt when it is clean.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// to_report_text(text) escaped for XML and HTML text and attribute values (quotes included);
// line breaks become character references so attribute values keep them.
std::string markup_escape(std::string_view text);

// Shortest decimal form that reads back to the same double ("nan", "inf", "-inf" included).
std::string format_number(double v);

}  // namespace mlacheck
