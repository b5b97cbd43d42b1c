#pragma once
// What the HTML report groups and plots cases by, read back from each row's repro string through
// the op registry's facets hook (harness/case_facets.hpp): a report of old rows needs nothing but
// the rows. A row whose repro does not parse keeps `parsed` false and lands in the "unknown" groups.
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/case_facets.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

CaseFacets facets_of(const CaseResult& row);

// The device a row ran on, with the GPU's index and PCI bus id beside its name when it has them,
// so a row of a multi-GPU run says which board produced it:
// "NVIDIA H100 80GB HBM3 (sm_90) [GPU 1, 0000:2a:00.0]"; "" when nothing ran.
std::string device_label(const CaseResult& row);

// Every coverage bucket, in display order, so that empty ones show as gaps: each op's corners of
// the problem space where upstream bugs lived (head padding, non-power-of-two q_len, block sizes,
// tensor parallelism, layouts), then each cache dtype and path.
const std::vector<std::string>& coverage_buckets();

// The tensor a row's headline error is read from: O for mla_decode, K for kv_gather (each as
// shown in report.csv); nullptr when nothing was compared.
const ComparedTensor* primary_tensor(const CaseResult& row);

// The distribution of bound used over correct (PASSED) rows, per compared tensor with a finite,
// non-zero rms bound (O; K and V of dequantising gathers; LSE has none): rms_rel_err / tol_rms in
// half-decade bins from 1e-4 to 1, plus "0" (exact) and "<1e-4". A row that passed used at most
// its whole bound, so the last bin ends at 1.
struct BoundUsedHistogram {
  std::vector<std::string> bins;                                     // "0", "<1e-4", "1e-4", "3e-4", ..., "3e-1"
  std::vector<std::pair<std::string, std::vector<double>>> tensors;  // "O rms" -> count per bin
};
BoundUsedHistogram bound_used_histogram(std::span<const CaseResult> rows);

// bound_used() over the PASSED rows with a compared tensor: how many, and the median, 90th
// percentile (nearest rank) and maximum, for the one line `mlacheck run` ends with.
struct BoundUsedSummary {
  std::size_t cases = 0;
  double median = 0.0, p90 = 0.0, max = 0.0;
};
BoundUsedSummary bound_used_summary(std::span<const CaseResult> rows);

}  // namespace mlacheck
