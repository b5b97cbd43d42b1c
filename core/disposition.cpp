#include "core/disposition.hpp"

#include <array>

namespace mlacheck {

namespace {

constexpr std::array<std::string_view, 6> kSkipNames = {"",          "unknown",   "unsupported", "not_enough_memory",
                                                        "no_device", "not_checked_by_policy"};
constexpr std::array<std::string_view, 8> kErrorNames = {
    "", "unknown", "crashed", "timed_out", "device_lost", "backend_exception", "harness_error", "backend_not_started"};
constexpr std::array<std::string_view, 4> kFailNames = {"", "unknown", "wrong_output", "refused_curated"};
constexpr std::array<std::string_view, 4> kCatchNames = {"comparison", "guard", "refusal", "crash"};

template <class Enum, std::size_t N>
std::optional<Enum> parse_name(const std::array<std::string_view, N>& names, std::string_view text) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

template <std::size_t N>
std::string_view name_of(const std::array<std::string_view, N>& names, std::size_t i) {
  return i < N ? names[i] : std::string_view("?");
}

}  // namespace

std::string_view to_string(SkipReason v) { return name_of(kSkipNames, static_cast<std::size_t>(v)); }
std::string_view to_string(ErrorKind v) { return name_of(kErrorNames, static_cast<std::size_t>(v)); }
std::string_view to_string(FailKind v) { return name_of(kFailNames, static_cast<std::size_t>(v)); }
std::string_view to_string(CatchKind v) { return name_of(kCatchNames, static_cast<std::size_t>(v)); }

std::string to_string(CatchKinds v) {
  std::string out;
  for (std::size_t i = 0; i < kCatchNames.size(); ++i) {
    if (v.has(static_cast<CatchKind>(i))) out += (out.empty() ? "" : "|") + std::string(kCatchNames[i]);
  }
  return out;
}

std::optional<SkipReason> parse_skip_reason(std::string_view text) { return parse_name<SkipReason>(kSkipNames, text); }
std::optional<ErrorKind> parse_error_kind(std::string_view text) { return parse_name<ErrorKind>(kErrorNames, text); }
std::optional<FailKind> parse_fail_kind(std::string_view text) { return parse_name<FailKind>(kFailNames, text); }
std::optional<CatchKind> parse_catch_kind(std::string_view text) { return parse_name<CatchKind>(kCatchNames, text); }

std::optional<CatchKinds> parse_caught_by(std::string_view text) {
  CatchKinds out;
  if (text.empty()) return out;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = text.find('|', start);
    const auto kind = parse_catch_kind(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (!kind) return std::nullopt;
    out.add(*kind);
    if (bar == std::string_view::npos) return out;
    start = bar + 1;
  }
}

bool is_crash(ErrorKind k) { return k == ErrorKind::crashed || k == ErrorKind::timed_out || k == ErrorKind::device_lost; }

CatchKinds catch_kinds(ResultState state, ErrorKind error, FailKind fail, bool guard_tripped, bool compared_wrong) {
  CatchKinds out;
  if (state == ResultState::errored) {
    if (is_crash(error)) {
      out.add(CatchKind::crash);
    } else if (error != ErrorKind::none && error != ErrorKind::unknown) {
      out.add(CatchKind::refusal);
    }
    return out;
  }
  if (state != ResultState::failed) return out;
  if (fail == FailKind::refused_curated) out.add(CatchKind::refusal);
  if (compared_wrong) out.add(CatchKind::comparison);
  if (guard_tripped) out.add(CatchKind::guard);
  return out;
}

}  // namespace mlacheck
