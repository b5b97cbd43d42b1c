#pragma once
// Known bugs: a scoped list that turns a matching case's FAILED or ERRORED state into KNOWN_BUG
// without changing its data (the numbers, the reason, the repro stay; the reason gains the entry).
// An entry names the case it covers as a partial repro pattern (the operation and the fields it
// fixes, repro_pattern.hpp) and may narrow it by what the run saw (the path taken, the backend,
// the platform) and by two facts no one repro key states (heads per rank, one request's q_len).
// Every field it sets must match; empty ones match anything.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/case_result.hpp"
#include "scenarios/repro_pattern.hpp"

namespace mlacheck::scenarios {

struct KnownBug {
  std::string id;         // unique in its table
  std::string reference;  // where the bug is tracked
  // Match fields.
  ReproPattern pattern;                // the case: its operation and the fields it fixes
  std::string path;                    // the path the case took: "split_kv", "persistent", "gather"
  std::string backend;                 // substring of the row's backend
  std::string platform;                // substring of the row's device, e.g. "MI355X", "gfx950", "H100"
  std::optional<int> rank_heads;       // query heads per rank, heads / tp (mla_decode)
  std::optional<int> q_len;            // some request of the case has this q_len (mla_decode)
  std::string note;
  std::string source;  // "file:line" of its row
};

inline constexpr std::array<std::string_view, 9> kKnownBugColumns = {
    "id", "reference", "case", "path", "backend", "platform", "rank_heads", "q_len", "note",
};

// Reads a known-bug table; TableError as for scenarios (a duplicate id, an empty case, a case
// pattern or cell that does not parse, a column its operation has no such field for).
std::vector<KnownBug> load_known_bugs(const std::string& path);

bool matches(const KnownBug& bug, const CaseResult& row);
// The first entry matching a FAILED or ERRORED row, or null.
const KnownBug* find_known_bug(const std::vector<KnownBug>& bugs, const CaseResult& row);
// Marks a FAILED or ERRORED row KNOWN_BUG when an entry matches; returns whether it did.
bool apply_known_bugs(const std::vector<KnownBug>& bugs, CaseResult& row);

}  // namespace mlacheck::scenarios
