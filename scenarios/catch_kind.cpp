#include "scenarios/catch_kind.hpp"

#include <algorithm>
#include <stdexcept>

namespace mlacheck::scenarios {

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
  const CatchKinds kinds = caught_by(row);
  for (CatchKind k : {CatchKind::comparison, CatchKind::guard, CatchKind::refusal, CatchKind::crash}) {
    if (kinds.has(k)) out.kinds.push_back(k);
  }
  if (row.state == ResultState::errored) {
    out.detail = out.kinds.empty() ? "ERRORED of unknown kind (" + row.reason + ")"
                                   : std::string(to_string(out.kinds.front())) + " (" + row.reason + ")";
    return out;
  }
  if (row.state != ResultState::failed) return out;
  std::string guards;
  if (canaries_broken(row)) guards = "canary " + row.canaries.substr(row.canaries.find(' ') + 1);
  std::string tensors;
  for (const ComparedTensor& t : row.tensors) {
    if (t.stats.unwritten > 0) {
      guards += (guards.empty() ? "" : "; ") + std::to_string(t.stats.unwritten) + " " + t.name + " elements unwritten";
    }
    if (shows_wrong_numbers(t)) tensors += (tensors.empty() ? "" : ", ") + t.name;
  }
  const auto add = [&](const std::string& part) { out.detail += (out.detail.empty() ? "" : " + ") + part; };
  if (kinds.has(CatchKind::refusal)) add("refusal (" + row.reason + ")");
  if (kinds.has(CatchKind::comparison)) add("comparison (" + tensors + ")");
  if (kinds.has(CatchKind::guard)) add("guard (" + guards + ")");
  // FAILED for a reason none of the above shows: no way is claimed, so no expectation is met.
  if (out.kinds.empty()) out.detail = "FAILED, but neither a comparison nor a guard shows it: " + row.reason;
  return out;
}

}  // namespace mlacheck::scenarios
