#pragma once
// The sensitivity matrix of `mlacheck scenarios --sensitivity`, as plain data: the default main
// job's mla_decode cases run clean and with each precision fault (device/faults.hpp,
// kPrecisionFaults) for each of several seeds, summarised per fault: on how many seeds the
// harness caught it, how many rows caught it per seed, and how close the rows came to their
// bound ("bound used", reports/case_facets.hpp: the largest rms error / rms bound of a row's
// tensors). The runs themselves are cli/sensitivity_run.hpp's; this file only aggregates, judges
// and writes.
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "device/faults.hpp"
#include "harness/case_result.hpp"

namespace mlacheck::cli {

// One pass of a seed's cases with one fault (or none): what came back.
struct SensitivityRun {
  std::uint64_t seed = 0;
  std::optional<Fault> fault;    // nullopt: the clean run
  std::vector<CaseResult> rows;  // in case order; fewer than the seed's cases when rows were lost
  std::size_t cases = 0;         // the cases of the seed's plan
  std::string lost;              // why rows are missing (the child died, timed out); "" when none are
};

// One seed of one fault.
struct SeedSensitivity {
  std::uint64_t seed = 0;
  std::size_t rows = 0;         // rows that came back
  std::size_t cases = 0;        // rows the plan has
  std::size_t rows_caught = 0;  // FAILED or ERRORED under the fault, PASSED clean (the clean run: rows not PASSED)
  double worst_failing_bound_used = 0.0;  // over the caught rows (clean: over its rows not PASSED); 0 if none
  double worst_passing_bound_used = 0.0;  // over the rows that PASSED
  std::string lost;
  std::string first_caught;  // id: reason of the first caught row, for the clean run's problem line
};

// One line of the matrix: a fault (or the clean run) over every seed.
struct FaultSensitivity {
  std::optional<Fault> fault;          // nullopt: the clean run
  std::vector<SeedSensitivity> seeds;  // in seed order

  std::string name() const;  // the fault's name, or "clean"
  // Seeds where the fault was caught by at least one row with every row back (the clean run:
  // seeds where every row came back and none failed).
  std::size_t seeds_good() const;
  std::size_t rows_caught_min() const;
  double rows_caught_median() const;
  std::size_t rows_caught_max() const;
  std::size_t rows_per_seed() const;  // the most cases a seed's plan had
  double worst_failing_bound_used() const;
  double worst_passing_bound_used() const;
};

struct SensitivityMatrix {
  FaultSensitivity clean;
  std::vector<FaultSensitivity> faults;  // in the order asked for
};

// Groups the runs by fault and seed. A faulted row counts as caught only where the same case
// (by id) PASSED in the seed's clean run: a fault cannot be credited with a row that fails anyway.
// Throws std::logic_error for a run of a fault or seed outside `faults` / `seeds`, or twice.
SensitivityMatrix summarise_sensitivity(std::span<const SensitivityRun> runs, std::span<const Fault> faults,
                                        std::span<const std::uint64_t> seeds);

// What keeps the matrix from showing the harness sensitive, one line each naming fault and seed;
// empty when it is good: a fault no row caught on a seed; a seed's clean run with a row that is
// not PASSED (a SKIPPED generated case excepted); rows lost for any run (a lost run proves
// nothing either way).
std::vector<std::string> sensitivity_problems(const SensitivityMatrix& m);

// The matrix as CSV: a header, then one line per fault after the clean run's (sensitivity.csv).
std::string sensitivity_summary_csv(const SensitivityMatrix& m);
// One line per (fault, seed) (sensitivity_seeds.csv).
std::string sensitivity_seeds_csv(const SensitivityMatrix& m);

// The matrix on the terminal: one line per fault, the clean run first.
void print_sensitivity_matrix(std::FILE* out, const SensitivityMatrix& m);

}  // namespace mlacheck::cli
