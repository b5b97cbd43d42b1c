#include "plan/plan_file.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "plan/data_files.hpp"

namespace mlacheck {

namespace {

namespace fs = std::filesystem;

struct Line {
  const std::string& file;
  int number;
  [[noreturn]] void fail(const std::string& reason) const {
    throw PlanFileError(file + ":" + std::to_string(number) + ": " + reason);
  }
};

template <class T>
T number(const Line& at, const std::string& key, const std::string& text, T min) {
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min) {
    at.fail(key + "=" + text + " is not a number >= " + std::to_string(min));
  }
  return v;
}

double work(const Line& at, const std::string& text) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v > 0.0) return v;
  } catch (const std::exception&) {
  }
  at.fail("budget=" + text + " is not a positive number of oracle work units (case_work, e.g. 2e9)");
}

std::string relative_to(const std::string& plan_file, const std::string& path) {
  if (fs::path(path).is_absolute()) return path;
  return (fs::path(plan_file).parent_path() / path).lexically_normal().string();
}

}  // namespace

RunPlanOptions read_plan_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw PlanFileError(path + ": cannot open the plan file");
  RunPlanOptions o;
  o.oracle_self_checks = false;
  o.default_sweeps = false;
  o.property_cases = 0;
  std::set<std::string> seen;
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    const Line at{path, n};
    if (const auto hash = text.find('#'); hash != std::string::npos) text.erase(hash);
    std::istringstream words(text);
    std::string source;
    if (!(words >> source)) continue;
    std::map<std::string, std::string> keys;
    for (std::string word; words >> word;) {
      const auto eq = word.find('=');
      if (eq == std::string::npos || eq == 0) at.fail("'" + word + "' is not key=value");
      if (!keys.emplace(word.substr(0, eq), word.substr(eq + 1)).second) at.fail(word.substr(0, eq) + "= given twice");
    }
    const auto allow = [&](std::initializer_list<const char*> names) {
      for (const auto& [k, v] : keys) {
        if (std::none_of(names.begin(), names.end(), [&](const char* a) { return k == a; })) {
          at.fail("'" + source + "' takes no key '" + k + "'");
        }
      }
    };
    if (source != "repro-file" && !seen.insert(source).second) at.fail("'" + source + "' appears twice");
    if (source == "oracle-self-checks") {
      allow({});
      o.oracle_self_checks = true;
    } else if (source == "default-sweeps") {
      allow({});
      o.default_sweeps = true;
    } else if (source == "scenarios") {
      allow({"path"});
      o.scenarios_file = keys.count("path") ? relative_to(path, keys["path"]) : kDefaultTable;
    } else if (source == "covering-array") {
      allow({"strength", "factors"});
      o.factors_file = keys.count("factors") ? relative_to(path, keys["factors"]) : kDefaultTable;
      if (keys.count("strength")) {
        o.coverage_strength = number<int>(at, "strength", keys["strength"], 1);
        if (o.coverage_strength > 11) at.fail("strength=" + keys["strength"] + " exceeds the 11 factors");
      }
    } else if (source == "properties") {
      allow({"seed", "size", "budget"});
      if (keys.count("seed")) o.seed = number<std::uint64_t>(at, "seed", keys["seed"], 0);
      o.property_cases = keys.count("size") ? number<int>(at, "size", keys["size"], 0) : 64;
      if (keys.count("budget")) o.property_case_work_budget = work(at, keys["budget"]);
    } else if (source == "repro-file") {
      allow({"path"});
      if (!keys.count("path")) at.fail("repro-file needs path=FILE");
      o.repro_files.push_back(relative_to(path, keys["path"]));
    } else {
      at.fail("'" + source +
              "' is no case source (oracle-self-checks, scenarios, default-sweeps, covering-array, properties, repro-file)");
    }
  }
  return o;
}

void resolve_plan_tables(RunPlanOptions& options) {
  if (options.scenarios_file == kDefaultTable) options.scenarios_file = scenario_table_path("");
  if (options.factors_file == kDefaultTable) {
    const FactorTableFiles files = production_factor_tables("");
    options.factors_file = files.factors;
    options.impossible_file = files.impossible;
  } else if (!options.factors_file.empty() && options.impossible_file.empty()) {
    options.impossible_file = (fs::path(options.factors_file).parent_path() / "impossible_combinations.csv").string();
  }
}

std::string tier_plan_path(const std::string& tier) {
  for (const char* known : kTierNames) {
    if (tier == known) return tier_file_path(tier + ".plan");
  }
  std::string names;
  for (const char* known : kTierNames) names += (names.empty() ? "" : ", ") + std::string(known);
  throw std::invalid_argument("--tier " + tier + " is not one of " + names + " (or give a plan file: --plan FILE)");
}

}  // namespace mlacheck
