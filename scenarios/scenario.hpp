#pragma once
// A named regression scenario: one upstream bug (../shared/UPSTREAM.md S1-S7, R1-R12) reproduced as a
// problem descriptor, with its provenance and the fault that puts the bug back in our backend.
#include <array>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"
#include "device/faults.hpp"
#include "harness/op_registry.hpp"
#include "scenarios/catch_kind.hpp"

namespace mlacheck::scenarios {

using ScenarioProblem = CaseProblem;  // one case of any registered op (harness/op_registry.hpp)

struct Scenario {
  std::string id;         // unique in its table; also the problem's name
  std::string upstream;   // the bug's id in UPSTREAM.md, e.g. "S4"
  std::string reference;  // where upstream recorded it, e.g. "aiter issue #2720"
  std::string model;
  std::string title;
  Fault fault = Fault::persistent_buffers_partial;  // the switch that reproduces the bug
  // How that fault is designed to be caught (catch_kind.hpp): the kill matrix fails when the
  // fault is caught in none of these ways, e.g. a comparison-designed fault that only crashed.
  std::vector<CatchKind> caught_by;
  std::string note;       // what broke, as upstream saw it
  ScenarioProblem problem;
  std::string source;     // "file:line" of its row
};

// The table's columns (scenarios/README.md documents each).
inline constexpr std::array<std::string_view, 30> kScenarioColumns = {
    "id",          "upstream", "reference", "model",       "title",    "op",         "fault",   "caught_by", "heads",
    "tp",          "lv",       "rope",      "kv_lens",     "q_lens",   "block_size", "q_dtype", "kv_dtype",  "kv_scale",
    "o_dtype",     "path",     "layout",    "interleaved", "kv_heads", "head_size",  "seed",    "note",
    "first_block",  // issue 13 item 2: blocks placed past 4 GiB
    "steps",        // issue 13 item 3: decode sequences (core/mla_sequence.hpp)
    "joins",        //   per request: the step it joins
    "leaves",       //   per request: the first step it has left
};

// Reads a scenario table. Throws TableError ("file:line: column 'c': reason") for a malformed
// file (csv_table.hpp), a cell that does not parse, a column set on an op that has no such field,
// a duplicate id, an unknown fault, and a problem that validate() refuses.
std::vector<Scenario> load_scenarios(const std::string& path);

}  // namespace mlacheck::scenarios
