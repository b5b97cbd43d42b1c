#pragma once
// A float emulation of a correct fp32-accumulating MLA decode kernel, for testing the tolerance
// model on the CPU (harness/tests/kernel_arithmetic_model_test.cpp): with the structure of the device
// kernels (device/kernels/row_group_attention.hpp, lse_merge.hpp) — key tiles, an online softmax
// in log2 units with a running max and rescales, fp32 accumulators, P rounded at the declared
// point, splits merged by LSE, O rounded to o_dtype — and knobs for the variation a correct kernel
// may legitimately show. IntermediatePrecision models one precision mistake at a time.
#include <cstdint>

#include "core/dtype.hpp"
#include "core/intermediate_precision.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/rounding_points.hpp"

namespace mlacheck {

// IntermediatePrecision (core/intermediate_precision.hpp) in this model: a field set to bf16 or
// f16 rounds that value to it wherever the model stores it:
//   partial_o      the normalised O of each split before the merge (only with more than one split)
//   running_o      the P.V accumulator, after every tile's rescale and accumulation
//   row_sum        the running row sum l, after every tile
//   row_max        the running max kept between tiles (the tile's P and alpha use the fp32 max)
//   lse            every stored LSE (the splits' partial LSEs and the final one)
//   softmax_scale  the score scale (softmax scale * kv_scale * log2(e)) the scores are multiplied by
// drop_one_key_from_normaliser: the last key a row sees is left out of l (but kept in P.V).

// Order of the fp32 sums: the q.k dot products over channels and P.V over a tile's tokens.
enum class AccumulationOrder : std::uint8_t {
  sequential,  // first to last
  reversed,    // last to first
  blocked,     // 16-term blocks summed in order, then the block sums pairwise (an MMA-like tree)
};

// What a correct kernel may choose differently without being wrong.
struct KernelVariation {
  int tile_tokens = 32;  // tokens per online-softmax tile (the device kernels use 16 or 32)
  int splits = 1;        // parts of each row's visible keys, cut on 16-token boundaries, merged by LSE
  AccumulationOrder order = AccumulationOrder::sequential;
  bool fma = false;  // fused multiply-add in P.V and in the accumulator rescale
  // A hardware exp2/log2 approximation: each result is off by a deterministic pseudo-random
  // amount of up to this many fp32 ulps (0: the correctly rounded libm result); exact at
  // exp2(0) = 1 and log2(1) = 0.
  int exp2_error_ulps = 0;
};

struct KernelModelConfig {
  PRoundingPoint p_rounding = PRoundingPoint::to_mma_input;  // resolved per problem
  KernelVariation variation;
  IntermediatePrecision precision;
};

// O [total_q_tokens, heads, Lv] as values of o_dtype and LSE [total_q_tokens, heads] (natural
// log), as such a kernel computes them. Throws std::invalid_argument for inputs that do not fit
// the problem, or a tile width or split count below 1.
MlaDecodeOutputs<float> kernel_arithmetic_model(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                                const KernelModelConfig& config = {});

}  // namespace mlacheck
