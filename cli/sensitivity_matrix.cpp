#include "cli/sensitivity_matrix.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "reports/case_facets.hpp"

namespace mlacheck::cli {

namespace {

// FAILED or ERRORED: the check noticed something (scenarios/kill_matrix.hpp's `caught`).
bool caught_state(ResultState s) { return s == ResultState::failed || s == ResultState::errored; }

std::string fault_name(const std::optional<Fault>& f) { return f ? std::string(to_string(*f)) : "clean"; }

SeedSensitivity clean_seed(const SensitivityRun& run) {
  SeedSensitivity s{run.seed, run.rows.size(), run.cases, 0, 0.0, 0.0, run.lost, ""};
  for (const CaseResult& row : run.rows) {
    if (is_failure(row.state)) {
      if (s.rows_caught++ == 0) s.first_caught = row.id + ": " + row.reason;
      s.worst_failing_bound_used = std::max(s.worst_failing_bound_used, bound_used(row));
    } else if (row.state == ResultState::passed) {
      s.worst_passing_bound_used = std::max(s.worst_passing_bound_used, bound_used(row));
    }
  }
  return s;
}

SeedSensitivity faulty_seed(const SensitivityRun& run, const std::map<std::string, ResultState>& clean_states) {
  SeedSensitivity s{run.seed, run.rows.size(), run.cases, 0, 0.0, 0.0, run.lost, ""};
  for (const CaseResult& row : run.rows) {
    const auto clean = clean_states.find(row.id);
    const bool passed_clean = clean != clean_states.end() && clean->second == ResultState::passed;
    if (caught_state(row.state) && passed_clean) {
      if (s.rows_caught++ == 0) s.first_caught = row.id + ": " + row.reason;
      s.worst_failing_bound_used = std::max(s.worst_failing_bound_used, bound_used(row));
    } else if (row.state == ResultState::passed) {
      s.worst_passing_bound_used = std::max(s.worst_passing_bound_used, bound_used(row));
    }
  }
  return s;
}

bool complete(const SeedSensitivity& s) { return s.lost.empty() && s.rows == s.cases; }

std::vector<std::size_t> caught_counts(const FaultSensitivity& f) {
  std::vector<std::size_t> n;
  for (const SeedSensitivity& s : f.seeds) n.push_back(s.rows_caught);
  std::sort(n.begin(), n.end());
  return n;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

std::string FaultSensitivity::name() const { return fault_name(fault); }

std::size_t FaultSensitivity::seeds_good() const {
  return static_cast<std::size_t>(std::count_if(seeds.begin(), seeds.end(), [&](const SeedSensitivity& s) {
    return complete(s) && (fault ? s.rows_caught > 0 : s.rows_caught == 0);
  }));
}

std::size_t FaultSensitivity::rows_caught_min() const {
  const auto n = caught_counts(*this);
  return n.empty() ? 0 : n.front();
}

std::size_t FaultSensitivity::rows_caught_max() const {
  const auto n = caught_counts(*this);
  return n.empty() ? 0 : n.back();
}

double FaultSensitivity::rows_caught_median() const {
  const auto n = caught_counts(*this);
  if (n.empty()) return 0.0;
  const std::size_t mid = n.size() / 2;
  return n.size() % 2 == 1 ? static_cast<double>(n[mid])
                           : (static_cast<double>(n[mid - 1]) + static_cast<double>(n[mid])) / 2.0;
}

std::size_t FaultSensitivity::rows_per_seed() const {
  std::size_t most = 0;
  for (const SeedSensitivity& s : seeds) most = std::max(most, s.cases);
  return most;
}

double FaultSensitivity::worst_failing_bound_used() const {
  double worst = 0.0;
  for (const SeedSensitivity& s : seeds) worst = std::max(worst, s.worst_failing_bound_used);
  return worst;
}

double FaultSensitivity::worst_passing_bound_used() const {
  double worst = 0.0;
  for (const SeedSensitivity& s : seeds) worst = std::max(worst, s.worst_passing_bound_used);
  return worst;
}

SensitivityMatrix summarise_sensitivity(std::span<const SensitivityRun> runs, std::span<const Fault> faults,
                                        std::span<const std::uint64_t> seeds) {
  // runs_by[(fault index or -1 for clean, seed index)]
  std::map<std::pair<int, std::size_t>, const SensitivityRun*> by;
  for (const SensitivityRun& r : runs) {
    const auto seed = std::find(seeds.begin(), seeds.end(), r.seed);
    if (seed == seeds.end())
      throw std::logic_error("sensitivity: a run of seed " + std::to_string(r.seed) + " that was not asked for");
    int column = -1;
    if (r.fault) {
      const auto f = std::find(faults.begin(), faults.end(), *r.fault);
      if (f == faults.end())
        throw std::logic_error("sensitivity: a run of fault " + fault_name(r.fault) + " that was not asked for");
      column = static_cast<int>(f - faults.begin());
    }
    if (!by.emplace(std::make_pair(column, static_cast<std::size_t>(seed - seeds.begin())), &r).second) {
      throw std::logic_error("sensitivity: fault " + fault_name(r.fault) + " seed " + std::to_string(r.seed) +
                             " ran twice");
    }
  }
  const auto run_of = [&](int column, std::size_t seed) -> SensitivityRun {
    const auto it = by.find({column, seed});
    if (it != by.end()) return *it->second;
    SensitivityRun missing;
    missing.seed = seeds[seed];
    if (column >= 0) missing.fault = faults[static_cast<std::size_t>(column)];
    missing.lost = "never ran";
    return missing;
  };

  SensitivityMatrix m;
  std::vector<std::map<std::string, ResultState>> clean_states(seeds.size());
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    const SensitivityRun clean = run_of(-1, s);
    for (const CaseResult& row : clean.rows) clean_states[s][row.id] = row.state;
    m.clean.seeds.push_back(clean_seed(clean));
  }
  for (std::size_t f = 0; f < faults.size(); ++f) {
    FaultSensitivity line;
    line.fault = faults[f];
    for (std::size_t s = 0; s < seeds.size(); ++s)
      line.seeds.push_back(faulty_seed(run_of(static_cast<int>(f), s), clean_states[s]));
    m.faults.push_back(std::move(line));
  }
  return m;
}

std::vector<std::string> sensitivity_problems(const SensitivityMatrix& m) {
  std::vector<std::string> out;
  const auto lost = [&](const FaultSensitivity& f, const SeedSensitivity& s) {
    if (complete(s)) return false;
    out.push_back(f.name() + " seed " + std::to_string(s.seed) + ": " + std::to_string(s.rows) + " of " +
                  std::to_string(s.cases) + " rows came back" + (s.lost.empty() ? "" : " (" + s.lost + ")"));
    return true;
  };
  for (const SeedSensitivity& s : m.clean.seeds) {
    if (lost(m.clean, s)) continue;
    if (s.rows_caught > 0) {
      out.push_back("clean seed " + std::to_string(s.seed) + ": " + std::to_string(s.rows_caught) +
                    " rows of the correct kernels did not pass (first: " + s.first_caught + ")");
    }
  }
  for (const FaultSensitivity& f : m.faults) {
    for (const SeedSensitivity& s : f.seeds) {
      if (lost(f, s)) continue;
      if (s.rows_caught == 0) {
        out.push_back(f.name() + " missed on seed " + std::to_string(s.seed) + ": none of " + std::to_string(s.rows) +
                      " rows caught it");
      }
    }
  }
  return out;
}

std::string sensitivity_summary_csv(const SensitivityMatrix& m) {
  std::string out =
      "fault,seeds,seeds_caught,missed_seeds,rows_per_seed,rows_caught_min,rows_caught_median,rows_caught_max,"
      "worst_failing_bound_used,worst_passing_bound_used\n";
  const auto line = [&](const FaultSensitivity& f) {
    std::string missed;
    for (const SeedSensitivity& s : f.seeds) {
      const bool good = complete(s) && (f.fault ? s.rows_caught > 0 : s.rows_caught == 0);
      if (!good) missed += (missed.empty() ? "" : " ") + std::to_string(s.seed);
    }
    out += field(f.name()) + "," + std::to_string(f.seeds.size()) + "," + std::to_string(f.seeds_good()) + "," +
           field(missed) + "," + std::to_string(f.rows_per_seed()) + "," + std::to_string(f.rows_caught_min()) + "," +
           number(f.rows_caught_median()) + "," + std::to_string(f.rows_caught_max()) + "," +
           number(f.worst_failing_bound_used()) + "," + number(f.worst_passing_bound_used()) + "\n";
  };
  line(m.clean);
  for (const FaultSensitivity& f : m.faults) line(f);
  return out;
}

std::string sensitivity_seeds_csv(const SensitivityMatrix& m) {
  std::string out =
      "fault,seed,cases,rows,rows_caught,worst_failing_bound_used,worst_passing_bound_used,lost,first_caught\n";
  const auto lines = [&](const FaultSensitivity& f) {
    for (const SeedSensitivity& s : f.seeds) {
      out += field(f.name()) + "," + std::to_string(s.seed) + "," + std::to_string(s.cases) + "," +
             std::to_string(s.rows) + "," + std::to_string(s.rows_caught) + "," + number(s.worst_failing_bound_used) +
             "," + number(s.worst_passing_bound_used) + "," + field(s.lost) + "," + field(s.first_caught) + "\n";
    }
  };
  lines(m.clean);
  for (const FaultSensitivity& f : m.faults) lines(f);
  return out;
}

void print_sensitivity_matrix(std::FILE* out, const SensitivityMatrix& m) {
  std::fprintf(out, "%-30s %8s %13s %12s %16s %16s\n", "fault", "seeds", "rows/seed", "caught rows", "bound used",
               "bound used");
  std::fprintf(out, "%-30s %8s %13s %12s %16s %16s\n", "", "caught", "", "min/median", "failing (worst)",
               "passing (worst)");
  const auto line = [&](const FaultSensitivity& f) {
    const std::string seeds = std::to_string(f.seeds_good()) + "/" + std::to_string(f.seeds.size());
    const std::string rows = std::to_string(f.rows_caught_min()) + "/" + number(f.rows_caught_median());
    std::fprintf(out, "%-30s %8s %13zu %12s %16s %16s\n", f.name().c_str(), seeds.c_str(), f.rows_per_seed(),
                 rows.c_str(), number(f.worst_failing_bound_used()).c_str(),
                 number(f.worst_passing_bound_used()).c_str());
  };
  line(m.clean);
  for (const FaultSensitivity& f : m.faults) line(f);
  std::fprintf(out,
               "(clean: seeds on which every row passed; its caught rows are rows that did not. A faulted row is "
               "caught when it FAILED or ERRORED and passed clean. Bound used: rms error / rms bound, the largest "
               "over a row's tensors.)\n");
}

}  // namespace mlacheck::cli
