#pragma once
// `mlacheck merge`: the shard reports of one run (--shard i/n) become one report.
#include <span>
#include <vector>

#include "harness/case_result.hpp"
#include "reports/csv_reader.hpp"

namespace mlacheck {

// The rows of every report, in the order given. Throws ReportError naming both files and lines
// when an id appears twice: two shards ran the same case, or a report was given twice.
std::vector<CaseResult> merge_reports(std::span<const CsvReport> reports);

}  // namespace mlacheck
