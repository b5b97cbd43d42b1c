// Issue 27 item 4: the scenario table's cases became repro strings (scripts/convert_scenario_table.py)
// and stayed the same cases. The fixture holds what the 30-column loader made of every row before
// the conversion; every one of those rows must still load to the same case (to_repro, so every
// descriptor field), with the same provenance, on the same line.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include "scenarios/case_repro.hpp"
#include "scenarios/scenario.hpp"

namespace mlacheck::scenarios {
namespace {

// One scenario as the fixture line: line, id, upstream, reference, model, title, fault,
// caught_by, note and the case's canonical repro string, tab-separated. The fixture was written by
// this function over the loader of the commit it names.
std::string fixture_line(const Scenario& s) {
  const std::string line = s.source.substr(s.source.rfind(':') + 1);
  return line + "\t" + s.id + "\t" + s.upstream + "\t" + s.reference + "\t" + s.model + "\t" + s.title + "\t" +
         std::string(to_string(s.fault)) + "\t" + join_catch_kinds(s.caught_by) + "\t" + s.note + "\t" +
         to_repro(s.problem);
}

TEST(ScenarioConversion, EveryRowBeforeTheConversionIsTheSameCaseOnItsLine) {
  std::map<std::string, std::string> now;  // id -> fixture line
  for (const Scenario& s : load_scenarios(std::string(MLACHECK_SCENARIO_DIR) + "/upstream.csv")) {
    now.emplace(s.id, fixture_line(s));
  }
  std::ifstream before(std::string(MLACHECK_SCENARIO_FIXTURES) + "/upstream_before_repro_cells.tsv");
  ASSERT_TRUE(before) << "fixture missing";
  int rows = 0;
  for (std::string line; std::getline(before, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++rows;
    const std::size_t tab = line.find('\t');
    const std::string id = line.substr(tab + 1, line.find('\t', tab + 1) - tab - 1);
    const auto it = now.find(id);
    ASSERT_NE(it, now.end()) << id << " is no longer in upstream.csv";
    EXPECT_EQ(it->second, line) << id;
  }
  EXPECT_EQ(rows, 40);
}

}  // namespace
}  // namespace mlacheck::scenarios
