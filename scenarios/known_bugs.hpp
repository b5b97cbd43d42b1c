#pragma once
// Known bugs: a scoped list that turns a matching case's FAILED or ERRORED state into KNOWN_BUG
// without changing its data (the numbers, the reason, the repro stay; the reason gains the entry).
// Entries match partially: every non-empty field must match, empty fields match anything, and an
// entry needs at least one non-empty match field so that it can never cover every case.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::scenarios {

struct KnownBug {
  std::string id;         // unique in its table
  std::string reference;  // where the bug is tracked
  // Match fields.
  std::string op;                 // "mla_decode" or "kv_gather"
  std::string path;               // the path the case took: "split_kv", "persistent", "gather"
  std::optional<DType> kv_dtype;  // the cache dtype
  std::optional<int> heads;       // per-rank query heads (mla_decode) or kv heads (kv_gather)
  std::optional<int> q_len;       // some request of the case has this q_len (mla_decode only)
  std::string backend;            // substring of the row's backend
  std::string platform;           // substring of the row's device, e.g. "MI355X", "gfx950", "H100"
  std::string repro;              // substring of the repro string, for any other field
  std::string note;
  std::string source;             // "file:line" of its row
};

inline constexpr std::array<std::string_view, 11> kKnownBugColumns = {
    "id", "reference", "op", "path", "kv_dtype", "heads", "q_len", "backend", "platform", "repro", "note",
};

// Reads a known-bug table; TableError as for scenarios (a duplicate id, an entry without any
// match field, a cell that does not parse).
std::vector<KnownBug> load_known_bugs(const std::string& path);

bool matches(const KnownBug& bug, const CaseResult& row);
// The first entry matching a FAILED or ERRORED row, or null.
const KnownBug* find_known_bug(const std::vector<KnownBug>& bugs, const CaseResult& row);
// Marks a FAILED or ERRORED row KNOWN_BUG when an entry matches; returns whether it did.
bool apply_known_bugs(const std::vector<KnownBug>& bugs, CaseResult& row);

}  // namespace mlacheck::scenarios
