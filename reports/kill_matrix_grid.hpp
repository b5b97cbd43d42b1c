#pragma once
// The kill matrix as the HTML report draws it, an optional input: every regression scenario run
// clean and with each fault switched on. The harness earns trust when each scenario passes clean
// and its own fault is caught (FAILED or ERRORED). Plain names and states, because reports know
// nothing of scenarios: the caller converts scenarios' KillMatrix into this grid.
#include <optional>
#include <string>
#include <vector>

#include "core/result.hpp"

namespace mlacheck {

struct KillMatrixGrid {
  std::vector<std::string> scenarios;  // rows
  std::vector<std::string> faults;     // columns; the clean run is a column too ("none")
  // cells[s][f]: the state of scenario s with fault f; nullopt where the pair was not run.
  std::vector<std::vector<std::optional<ResultState>>> cells;
  // intended[s]: the column of the fault scenario s reproduces, or -1.
  std::vector<int> intended;
};

}  // namespace mlacheck
