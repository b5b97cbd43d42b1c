#pragma once
// How a faulted case was caught. A kill matrix cell that only says FAILED or ERRORED cannot tell a
// fault the numbers exposed from one that happened to crash the process, so each cell names the
// way: the comparison against the oracle (which tensors), a guard (broken canaries, elements the
// kernel never wrote), a refusal (an API's error, with its text) or a crash (a signal, a lost
// device such as an illegal address, a watchdog timeout). Scenarios state the ways their fault is
// designed to be caught (upstream.csv's caught_by), and the kill matrix holds them to it.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case_result.hpp"

namespace mlacheck::scenarios {

// The enum and its text forms live in core/disposition.hpp, beside the row's other kinds.
using mlacheck::CatchKind;

// "guard|crash" -> {guard, crash}; throws std::invalid_argument naming the bad word. Not empty.
std::vector<CatchKind> parse_catch_kinds(std::string_view text);
std::string join_catch_kinds(const std::vector<CatchKind>& kinds);  // "guard|crash"

struct HowCaught {
  // Every way the row shows the fault; empty when the row was not caught (neither FAILED nor
  // ERRORED) or FAILED without a tensor, canary or unwritten element to show why.
  std::vector<CatchKind> kinds;
  // One line: "comparison (O, LSE)", "guard (canary partial_o(after); 96 O elements unwritten)",
  // "refusal (persistent launch: reduce_partial_map missing)", "crash (signal 6 (Aborted))".
  std::string detail;
  bool has(CatchKind k) const;
};

// Read from the row's typed fields only (harness/case_result.hpp's caught_by; its reason is only
// quoted in the detail): ERRORED is a crash for the error kinds crashed, timed_out and
// device_lost, else a refusal; FAILED is a guard for broken canaries or unwritten elements, a
// comparison for a tensor with mismatches, NaN/Inf or an rms error over its bound (both when both
// hold), and a refusal for a curated case the built-in backend refused (fail kind
// refused_curated).
HowCaught how_caught(const CaseResult& row);

}  // namespace mlacheck::scenarios
