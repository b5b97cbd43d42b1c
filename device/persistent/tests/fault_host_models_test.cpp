// Host models of three variant faults whose branches live in device code (R6 in split-KV stage 1,
// R10 in the persistent instance dispatch, R11 in the attention parameters), each built from the
// oracle on the inputs the faulted kernel would in effect read, and judged by the case's own
// tolerance: proof without a GPU that the comparison catches what the switch does to their
// scenarios' shapes. The kill matrix (`mlacheck scenarios`) proves the same on the device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/compare.hpp"
#include "core/dtype_convert.hpp"
#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {
namespace {

MlaDecodeProblem decode(int total_heads, int tp, std::vector<int> kv_lens, DType q, DType kv, float kv_scale) {
  MlaDecodeProblem p;
  p.name = "model";
  p.total_heads = total_heads;
  p.tp = tp;
  p.q_lens.assign(kv_lens.size(), 1);
  p.kv_lens = std::move(kv_lens);
  p.q_dtype = q;
  p.kv_dtype = kv;
  p.kv_scale = kv_scale;
  return with_defaults(p);
}

double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (float x : v) {
    if (std::isfinite(x)) m = std::max(m, static_cast<double>(std::abs(x)));
  }
  return m;
}

// Whether O computed the faulted way would pass the case's comparison.
bool o_passes(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const std::vector<double>& faulted_o) {
  const MlaDecodeOutputs<double> right = mla_decode_reference(p, in);
  const Tolerance tol = mla_decode_tolerance(p, max_abs(in.q), max_abs(in.kv_cache) * p.kv_scale).o;
  return within(compare(right.o, faulted_o, tol), tol);
}

TEST(PaddedFp8SingleRequestModel, LaterRequestsAttendRequestZerosTokens) {
  // Kimi-K3 at TP8 (12 heads per rank), fp8 cache. The fault reads request b's kv_len tokens from
  // the start of the flat kv space: a page-size-1 view whose row b lists those slots.
  const MlaDecodeProblem p = decode(96, 8, {700, 1500, 333}, DType::bf16, DType::fp8_e4m3fn, 1.0f);
  const MlaDecodeInputs in = make_inputs(p);
  const PageIndices flat = expand_page_indices(p, in);
  MlaDecodeProblem seen = p;
  seen.block_size = 1;
  seen.num_blocks = p.num_blocks * p.block_size;
  MlaDecodeInputs seen_in = in;
  seen_in.block_table_stride = max_kv_len(p);
  seen_in.block_table.assign(static_cast<std::size_t>(batch(p) * seen_in.block_table_stride), -1);
  for (int b = 0; b < batch(p); ++b) {
    std::copy_n(flat.kv_indices.begin(), p.kv_lens[static_cast<std::size_t>(b)],
                seen_in.block_table.begin() + b * seen_in.block_table_stride);
  }
  const std::vector<double> faulted = mla_decode_reference(seen, seen_in).o;
  EXPECT_FALSE(o_passes(p, in, faulted));
  // A batch of one reads its own tokens: the single-request smoke test that passed upstream.
  const MlaDecodeProblem one = decode(96, 8, {700}, DType::bf16, DType::fp8_e4m3fn, 1.0f);
  const MlaDecodeInputs one_in = make_inputs(one);
  EXPECT_TRUE(o_passes(one, one_in, mla_decode_reference(one, one_in).o));
}

TEST(MixedDtypesOnSinglePlaneModel, QCodesReadAsTheCacheTypeAreCaught) {
  // DeepSeek-V3 at TP1: bf16 q over an f16 cache, and Kimi-K2 at TP4 the other way round. The
  // single-plane kernel reads q's 16-bit codes as codes of the cache's type.
  for (const auto& [q_dtype, kv_dtype] : {std::pair{DType::bf16, DType::f16}, std::pair{DType::f16, DType::bf16}}) {
    const MlaDecodeProblem p =
        decode(q_dtype == DType::bf16 ? 128 : 64, q_dtype == DType::bf16 ? 1 : 4, {1024, 77}, q_dtype, kv_dtype, 1.0f);
    const MlaDecodeInputs in = make_inputs(p);
    MlaDecodeInputs misread = in;
    for (float& x : misread.q) {
      x = q_dtype == DType::bf16 ? to_float(f16_t{static_cast<std::uint16_t>(from_float<bf16_t>(x).bits)})
                                 : to_float(bf16_t{static_cast<std::uint16_t>(from_float<f16_t>(x).bits)});
    }
    EXPECT_FALSE(o_passes(p, in, mla_decode_reference(p, misread).o)) << to_string(q_dtype) << " q";
  }
}

TEST(ValueScaleKTimesVModel, ScalesOByKvScale) {
  // Values dequantised with kv_scale x kv_scale where kv_scale belongs: O is kv_scale times the
  // right one (the weights are unchanged), which a scale of 1 hides.
  for (float kv_scale : {0.0625f, 2.5f, 1.0f}) {
    const MlaDecodeProblem p = decode(128, 8, {1000, 333}, DType::bf16, DType::fp8_e4m3fn, kv_scale);
    const MlaDecodeInputs in = make_inputs(p);
    std::vector<double> faulted = mla_decode_reference(p, in).o;
    for (double& x : faulted) x *= kv_scale;
    EXPECT_EQ(o_passes(p, in, faulted), kv_scale == 1.0f) << "kv_scale " << kv_scale;
  }
}

}  // namespace
}  // namespace mlacheck
