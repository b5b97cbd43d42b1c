#pragma once
// Rows on the terminal: one line per case and a closing count line ("N passed, N failed, ...").
#include <cstdio>
#include <span>

#include "harness/case_result.hpp"

namespace mlacheck::cli {

void print_row(std::FILE* out, const CaseResult& row, bool verbose);
// Prints "<p> passed, <f> failed, <s> skipped, <e> errored, <m> mistrusted, <k> known bugs" and
// returns the exit status: 1 when any row FAILED or ERRORED, else 0.
int print_summary(std::FILE* out, std::span<const CaseResult> rows);

}  // namespace mlacheck::cli
