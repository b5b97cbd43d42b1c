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

enum class CatchKind : std::uint8_t { comparison, guard, refusal, crash };

std::string_view to_string(CatchKind k);  // "comparison", "guard", "refusal", "crash"
std::optional<CatchKind> parse_catch_kind(std::string_view text);
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

// Read from the row: ERRORED is a crash when the case took its process or device down
// (harness/lost_case.hpp), else a refusal; FAILED is a guard for broken canaries or unwritten
// elements and a comparison for a tensor with mismatches, NaN/Inf or an rms error over its bound
// (both when both hold).
HowCaught how_caught(const CaseResult& row);

}  // namespace mlacheck::scenarios
