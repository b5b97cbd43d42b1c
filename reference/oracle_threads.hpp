#pragma once
// How many threads one case's oracle gets (mla_decode_reference's `threads`) when several cases'
// oracles are prepared at once (harness/case_prefetch.hpp): the host's threads shared among the
// cases in flight, so a short queue (the last cases of a run, a plan of one large case) still keeps
// every core busy. Outputs and statistics are bit-identical for every count.
#include <cstddef>

namespace mlacheck {

// max(1, hardware_threads / cases_in_flight); hardware_threads 0 (unknown) counts as 1.
int oracle_threads_for_queue(std::size_t cases_in_flight, unsigned hardware_threads);

}  // namespace mlacheck
