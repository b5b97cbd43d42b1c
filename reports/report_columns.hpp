#pragma once
// The columns of report.csv, in order, and how a row's tensors map onto them. The names are a
// published interface (docs/report-columns.md): scripts and dashboards read them, so a change
// here is a format change.
#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <span>

#include "harness/case_result.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck {

inline constexpr std::array<std::string_view, 12> kLeadingColumns = {
    "id",     "op",           "repro",             "backend", "backend_version", "device",
    "device_index", "device_pci_bus_id", "path", "faults",          "state",  "reason"};

// Columns added after the format was first published. A report without them (written by an
// older mlacheck) still reads: they are empty, "does not apply", in every row.
inline constexpr std::array<std::string_view, 3> kAddedColumns = {"backend_version", "device_index",
                                                                  "device_pci_bus_id"};

// One group of columns per tensor name, each op's `report_groups` in registry order (mla_decode
// rows fill O and LSE, kv_gather rows K and V): a column always means one tensor, so a plot of
// o_rms_rel_err never mixes outputs of two ops.
inline constexpr auto kTensorGroups = ShippedOps::report_groups;
inline constexpr std::array<std::string_view, 12> kTensorMetrics = {
    "max_abs_err", "max_rel_err", "rms_rel_err", "cosine", "mismatches", "nonfinite",
    "unwritten",   "total",       "tol_abs",     "tol_rel", "tol_rms",   "tol_rule"};

inline constexpr std::array<std::string_view, 5> kTrailingColumns = {
    "canaries", "num_splits", "reference_ms", "device_ms", "wall_ms"};

// Per-tensor columns added after the format was first published, after the trailing columns, one
// group per tensor in kTensorGroups order ("o_nan_written", "o_worst_element", "lse_nan_written",
// ...). Like kAddedColumns, a report without them still reads: 0 NaNs written, no element named.
inline constexpr std::array<std::string_view, 2> kAddedTensorMetrics = {"nan_written", "worst_element"};

// Columns added after the per-tensor ones, at the end of a row. Like kAddedColumns, a report
// without them still reads: empty in every row. skip_reason, error_kind and fail_kind are the
// row's typed disposition (core/disposition.hpp); read from a report without them, a SKIPPED,
// ERRORED or FAILED row's kind is "unknown" (nothing is guessed from its reason). caught_by is
// written from the row's typed fields (harness/case_result.hpp's caught_by), and read back only
// to check its words.
inline constexpr std::array<std::string_view, 5> kAddedFinalColumns = {"shrunk_repro", "skip_reason", "error_kind",
                                                                       "fail_kind", "caught_by"};

inline constexpr std::size_t kReportColumnCount = kLeadingColumns.size() +
                                                  kTensorGroups.size() * kTensorMetrics.size() +
                                                  kTrailingColumns.size() +
                                                  kTensorGroups.size() * kAddedTensorMetrics.size() +
                                                  kAddedFinalColumns.size();

// Every column name in file order: "id", ..., "o_max_abs_err", ..., "v_tol_rule", ..., "wall_ms",
// "o_nan_written", "o_worst_element", ..., "v_worst_element", "shrunk_repro", "skip_reason", ...,
// "caught_by".
const std::array<std::string, kReportColumnCount>& report_columns();

// The column names of a report whose tensor groups are `groups`, in file order; report_columns()
// is this for kTensorGroups. (A test op's report has its own groups: tests/test_op.)
std::vector<std::string> report_columns_for(std::span<const std::string_view> groups);

// "o_", "lse_", "k_", "v_".
std::string column_prefix(std::string_view group);

// True for the columns a report written by an older mlacheck may lack (kAddedColumns, the
// kAddedTensorMetrics of every group and kAddedFinalColumns).
bool column_added_later(std::string_view column);

// The tensor of `row` shown in each group's columns (nullptr for an empty group). A tensor
// belongs to the group its name starts with ("O" and "O (P rounded)" both to O). When a group
// has several (the oracle self-check compares with and without rounding P), it shows the one
// that breaks its tolerance, else the one with the larger rms_rel_err: a report row never looks
// better than the check was. Throws ReportError for a tensor of no group.
std::array<const ComparedTensor*, kTensorGroups.size()> tensors_by_group(const CaseResult& row);
// The same over `groups`, into `out` (one slot per group).
void tensors_by_group(const CaseResult& row, std::span<const std::string_view> groups,
                      std::span<const ComparedTensor*> out);

}  // namespace mlacheck
