#pragma once
// rapidcheck generation of valid kv_gather problems, sized so that small cases come first.
#include <ostream>

#include <rapidcheck.h>

#include "core/gather_problem.hpp"

namespace mlacheck {

struct GatherGenLimits {
  int max_batch = 4;
  int max_kv_len = 600;
};

// NHD or SHUFFLE, contiguous or hybrid-interleaved, with dense strides or random positive padded
// ones (NHD also in head-major order within a block); every cache/out dtype pair validate()
// accepts, with random dequantisation scales. The result has with_defaults() applied and passes
// validate().
rc::Gen<KvGatherProblem> gen_kv_gather_problem(GatherGenLimits limits = {});

void showValue(const KvGatherProblem& p, std::ostream& os);

}  // namespace mlacheck

namespace rc {
template <>
struct Arbitrary<mlacheck::KvGatherProblem> {
  static Gen<mlacheck::KvGatherProblem> arbitrary() { return mlacheck::gen_kv_gather_problem(); }
};
}  // namespace rc
