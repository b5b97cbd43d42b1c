#pragma once
// Range checks for the numeric command-line options. CLI11's own checks let bad values through:
// PositiveNumber passes NaN (every comparison with it is false, so `--timeout nan` switched the
// watchdog off), and an unsigned option reads "-1" as its largest value. These read the text
// themselves: a whole number must be digits only, a real number finite, and both in range, so a
// bad value is refused (exit 2, naming the option) before anything is sized from it.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace mlacheck::cli {

// The largest counts accepted: a count sizes lists before the run starts, so a typo such as
// 2147483647 must be refused rather than allocated until bad_alloc. docs/design.md lists them.
inline constexpr std::int64_t kMaxPropertyCases = 100'000;  // run --property-cases
inline constexpr std::int64_t kMaxSeeds = 1'000;            // scenarios --sensitivity --seeds
inline constexpr std::int64_t kMaxLookahead = 4'096;        // run --lookahead
inline constexpr double kMaxTimeoutSeconds = 86'400.0;      // --timeout: one day per case

// A whole number in [lo, hi]: digits only, with one leading '-' allowed when lo < 0.
CLI::Validator whole_number(std::int64_t lo, std::int64_t hi);
// Any value of an unsigned 64-bit option (a seed): digits only, no sign, no wrap-around.
CLI::Validator unsigned_64();
// A finite real number in [lo, hi] (or (lo, hi] when lo_open): never NaN or an infinity.
CLI::Validator finite_number(double lo, double hi, bool lo_open = false);

// The checks themselves, for tests: the reason a text is refused, or nothing when it is accepted.
std::optional<std::string> whole_number_error(const std::string& text, std::int64_t lo, std::int64_t hi);
std::optional<std::string> unsigned_64_error(const std::string& text);
std::optional<std::string> finite_number_error(const std::string& text, double lo, double hi, bool lo_open);

}  // namespace mlacheck::cli
