#include "scenarios/catch_kind.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "harness/lost_case.hpp"

namespace mlacheck::scenarios {

namespace {

constexpr std::array<std::string_view, 4> kNames = {"comparison", "guard", "refusal", "crash"};

bool compared_wrong(const ComparedTensor& t) {
  return t.stats.mismatches > 0 || t.stats.nonfinite > 0 || t.stats.rms_rel_err > t.tol.rms;
}

}  // namespace

std::string_view to_string(CatchKind k) { return kNames[static_cast<std::size_t>(k)]; }

std::optional<CatchKind> parse_catch_kind(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<CatchKind>(i);
  }
  return std::nullopt;
}

std::vector<CatchKind> parse_catch_kinds(std::string_view text) {
  std::vector<CatchKind> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = text.find('|', start);
    const std::string_view word = text.substr(start, bar == std::string_view::npos ? bar : bar - start);
    const auto kind = parse_catch_kind(word);
    if (!kind) {
      throw std::invalid_argument("'" + std::string(word) + "' is not a way to catch a fault (comparison, guard, refusal, crash)");
    }
    if (std::find(out.begin(), out.end(), *kind) == out.end()) out.push_back(*kind);
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return out;
}

std::string join_catch_kinds(const std::vector<CatchKind>& kinds) {
  std::string out;
  for (CatchKind k : kinds) out += (out.empty() ? "" : "|") + std::string(to_string(k));
  return out;
}

bool HowCaught::has(CatchKind k) const { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); }

HowCaught how_caught(const CaseResult& row) {
  HowCaught out;
  if (row.state == ResultState::errored) {
    const CatchKind kind = case_loss(row) == CaseLoss::none ? CatchKind::refusal : CatchKind::crash;
    out.kinds = {kind};
    out.detail = std::string(to_string(kind)) + " (" + row.reason + ")";
    return out;
  }
  if (row.state != ResultState::failed) return out;
  std::string guards;
  if (row.canaries.rfind("broken", 0) == 0) guards = "canary " + row.canaries.substr(row.canaries.find(' ') + 1);
  std::string tensors;
  for (const ComparedTensor& t : row.tensors) {
    if (t.stats.unwritten > 0) {
      guards += (guards.empty() ? "" : "; ") + std::to_string(t.stats.unwritten) + " " + t.name + " elements unwritten";
    }
    if (compared_wrong(t)) tensors += (tensors.empty() ? "" : ", ") + t.name;
  }
  if (!tensors.empty()) {
    out.kinds.push_back(CatchKind::comparison);
    out.detail = "comparison (" + tensors + ")";
  }
  if (!guards.empty()) {
    out.kinds.push_back(CatchKind::guard);
    out.detail += (out.detail.empty() ? "" : " + ") + std::string("guard (") + guards + ")";
  }
  // FAILED for a reason none of the above shows: no way is claimed, so no expectation is met.
  if (out.kinds.empty()) out.detail = "FAILED, but neither a comparison nor a guard shows it: " + row.reason;
  return out;
}

}  // namespace mlacheck::scenarios
