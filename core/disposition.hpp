#pragma once
// A row's disposition: the typed kind of its skip, error or failure, and the ways a faulted row was
// caught. The state (core/result.hpp) says what a row counts as; these say why, as data that every
// route carries (row frames, report.csv, the C API, Python, JUnit), so nothing ever reads a kind
// back out of the human reason text. Text forms are the enumerator names, "" for none.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.hpp"

namespace mlacheck {

// Why a SKIPPED row was not checked.
enum class SkipReason : std::uint8_t {
  none,
  unknown,                // a report written before this column existed
  unsupported,            // the backend refused the case (supports())
  not_enough_memory,      // admission found too little free memory: a resource, not a refusal
  no_device,              // no backend could be made here (no GPU at all)
  not_checked_by_policy,  // a policy chose not to check it (e.g. a case kind a route does not run)
};

// What made an ERRORED row.
enum class ErrorKind : std::uint8_t {
  none,
  unknown,              // a report written before this column existed
  crashed,              // the case's process died (a signal, an unexpected exit, a garbled row)
  timed_out,            // the watchdog killed the case's process
  device_lost,          // a sticky GPU error: the context is gone
  backend_exception,    // the backend raised or returned an error
  harness_error,        // the harness itself failed (the oracle refused, an internal error)
  backend_not_started,  // no backend could start on a GPU this machine has
};

// Why a FAILED row failed.
enum class FailKind : std::uint8_t {
  none,
  unknown,          // a report written before this column existed
  wrong_output,     // the numbers, unwritten elements or guard canaries are wrong
  refused_curated,  // the built-in backend refused a curated case it must run
};

// How a faulted row was caught (scenarios/catch_kind.hpp holds the kill matrix to these).
enum class CatchKind : std::uint8_t { comparison, guard, refusal, crash };

// A set of catch kinds; text "comparison|guard", "" for none.
class CatchKinds {
 public:
  CatchKinds() = default;
  void add(CatchKind k) { bits_ = static_cast<std::uint8_t>(bits_ | bit(k)); }
  bool has(CatchKind k) const { return (bits_ & bit(k)) != 0; }
  bool empty() const { return bits_ == 0; }
  bool operator==(const CatchKinds&) const = default;

 private:
  static std::uint8_t bit(CatchKind k) { return static_cast<std::uint8_t>(1u << static_cast<unsigned>(k)); }
  std::uint8_t bits_ = 0;
};

std::string_view to_string(SkipReason v);
std::string_view to_string(ErrorKind v);
std::string_view to_string(FailKind v);
std::string_view to_string(CatchKind v);
std::string to_string(CatchKinds v);  // in CatchKind order, joined by '|'
// The inverse of to_string; nullopt for a word that names none.
std::optional<SkipReason> parse_skip_reason(std::string_view text);
std::optional<ErrorKind> parse_error_kind(std::string_view text);
std::optional<FailKind> parse_fail_kind(std::string_view text);
std::optional<CatchKind> parse_catch_kind(std::string_view text);
std::optional<CatchKinds> parse_caught_by(std::string_view text);  // "" is the empty set

// The crash kinds: the case took its process or device down.
bool is_crash(ErrorKind k);

// The ways a row shows a fault, from its typed fields: FAILED is a guard when `guard_tripped`
// (broken canaries, unwritten elements), a comparison when `compared_wrong` (a tensor outside its
// bounds), a refusal when refused_curated; ERRORED a crash for the crash kinds, a refusal for the
// others; unknown kinds and other states (a KNOWN_BUG row too) show none.
CatchKinds catch_kinds(ResultState state, ErrorKind error, FailKind fail, bool guard_tripped, bool compared_wrong);

}  // namespace mlacheck
