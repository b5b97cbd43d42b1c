#pragma once
// The kill matrix on the terminal: one line per scenario, one column per fault (numbered, with a
// legend), the scenario's own fault in brackets.
#include <cstdio>

#include "scenarios/kill_matrix.hpp"

namespace mlacheck::cli {

void print_kill_matrix(std::FILE* out, const scenarios::KillMatrix& m);

}  // namespace mlacheck::cli
