#pragma once
// junit.xml for CI systems (Jenkins, GitLab, GitHub test reporters): one <testcase> per case,
// named by its id and classed by "op.backend"; the state becomes failure, error or skipped
// through junit_kind() alone, with the reason as message; the repro string and the metrics go to
// system-out, so a CI page shows how to replay a failure.
#include <iosfwd>
#include <span>
#include <string>

#include "harness/case_result.hpp"

namespace mlacheck {

void write_junit(std::ostream& out, std::span<const CaseResult> rows);
// Writes the file; throws ReportError when it cannot.
void write_junit_file(const std::string& path, std::span<const CaseResult> rows);

}  // namespace mlacheck
