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

// The table's columns (scenarios/README.md documents each): the case as a repro string
// (case_repro.hpp) and its provenance.
inline constexpr std::array<std::string_view, 9> kScenarioColumns = {
    "id", "upstream", "reference", "model", "title", "fault", "caught_by", "case", "note",
};

// Reads a scenario table. Throws TableError ("file:line: column 'c': reason") for a malformed
// file (csv_table.hpp), an empty cell, a case that does not parse as a repro string or that
// validate() refuses (the reason names the key), a case naming itself (the id does), a duplicate
// id and an unknown fault.
std::vector<Scenario> load_scenarios(const std::string& path);

}  // namespace mlacheck::scenarios
