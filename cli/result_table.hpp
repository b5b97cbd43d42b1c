#pragma once
// Rows on the terminal: one line per case and a closing count line ("N passed, N failed, ...").
#include <cstdio>
#include <span>
#include <string>

#include "harness/case_result.hpp"

namespace mlacheck::cli {

void print_row(std::FILE* out, const CaseResult& row, bool verbose);
// Prints "<p> passed, <f> failed, <s> skipped, <e> errored, <m> mistrusted, <k> known bugs" and
// returns the exit status: 1 when any row FAILED or ERRORED, else 0.
int print_summary(std::FILE* out, std::span<const CaseResult> rows);
// For a run without any GPU: says plainly that no device case was checked, so that a column of
// SKIPPED rows and exit status 0 is never read as a green run of the device.
void print_nothing_checked(std::FILE* out, std::span<const CaseResult> rows, const std::string& no_gpu_reason);

}  // namespace mlacheck::cli
