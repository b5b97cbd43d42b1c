#pragma once
// mma_tile.hpp on CDNA (gfx90a, gfx94x; wave64): a 16 x 16 x 16 tile product is one
// v_mfma_f32_16x16x16bf16_1k or v_mfma_f32_16x16x16f16; on CDNA3 (gfx94x, where the compiler has
// the builtin: MLACHECK_FP8_MMA) a 16 x 16 x 32 fp8 e4m3 fnuz tile product is one
// v_mfma_f32_16x16x32_fp8_fp8.
//
// Which lane holds which value is mfma_fragment_layout.hpp: plain functions of the lane id that
// this file calls and the host lane model (device/kernels/tests/mfma_lane_model_test.cpp) runs
// for all 64 lanes against AMD's documented layout. What stays here is what only the GPU has:
// A and B^T rows are read as one 8-byte ds_read per lane from value 0 (16-bit values 0-3, or fp8
// bytes 0-7), B stored as rows of k (P V) as four 2-byte reads down its column (the layout header
// asserts these steps), and value j of a fragment is element j of the instruction's operand vector
// (byte j of the fp8 instruction's 64-bit operand). Addresses keep the form
// p + row * stride + col, which compiles to the same code as before the functions existed.
// Included through mma_tile.hpp only.
#include <cstdint>
#include <type_traits>

#include "core/dtype_convert.hpp"
#include "device/kernels/mfma_fragment_layout.hpp"

namespace mlacheck::kernels::mma {

inline constexpr int kLanes = mfma::kLanes;
inline constexpr bool kHasFp8Mma = MLACHECK_FP8_MMA != 0;
using Fp8MmaType = fp8_e4m3fnuz_t;  // CDNA3's variant

__device__ inline int lane() { return static_cast<int>(threadIdx.x) % kLanes; }
__device__ inline int warp() { return static_cast<int>(threadIdx.x) / kLanes; }

namespace detail {
typedef float Floatx4 __attribute__((ext_vector_type(4)));
typedef short Shortx4 __attribute__((ext_vector_type(4)));
typedef _Float16 Halfx4 __attribute__((ext_vector_type(4)));

// The operand vector type of the MFMA instruction for T.
template <class T>
using OperandVector = std::conditional_t<std::is_same_v<T, bf16_t>, Shortx4, Halfx4>;

struct alignas(8) Codes4 {
  std::uint16_t code[mfma::kValuesPerLane];
};
}  // namespace detail

struct Acc {
  static constexpr int kElems = mfma::kValuesPerLane;
  detail::Floatx4 v = {0.0f, 0.0f, 0.0f, 0.0f};
};

using mfma::acc_col;
using mfma::acc_row;

template <class T>
struct FragA {
  detail::OperandVector<T> v;
};
template <class T>
struct FragB {
  detail::OperandVector<T> v;
};

template <class T>
__device__ inline FragA<T> load_a(const std::uint16_t* p, int stride) {
  const int l = lane();
  const auto codes = *reinterpret_cast<const detail::Codes4*>(p + mfma::a_row(l, 0) * stride + mfma::a_col(l, 0));
  return {__builtin_bit_cast(detail::OperandVector<T>, codes)};
}

template <class T>
__device__ inline FragB<T> load_bt(const std::uint16_t* p, int stride) {
  const int l = lane();
  const auto codes = *reinterpret_cast<const detail::Codes4*>(p + mfma::bt_row(l, 0) * stride + mfma::bt_col(l, 0));
  return {__builtin_bit_cast(detail::OperandVector<T>, codes)};
}

template <class T>
__device__ inline FragB<T> load_b(const std::uint16_t* p, int stride) {
  const int l = lane();
  const std::uint16_t* column = p + mfma::b_row(l, 0) * stride + mfma::b_col(l, 0);
  detail::Codes4 codes;
#pragma unroll
  for (int j = 0; j < mfma::kValuesPerLane; ++j) codes.code[j] = column[j * stride];
  return {__builtin_bit_cast(detail::OperandVector<T>, codes)};
}

template <class T>
__device__ inline void mma(Acc& acc, const FragA<T>& a, const FragB<T>& b) {
  if constexpr (std::is_same_v<T, bf16_t>) {
    acc.v = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a.v, b.v, acc.v, 0, 0, 0);
  } else {
    static_assert(std::is_same_v<T, f16_t>, "MFMA tiles take bf16 or f16");
    acc.v = __builtin_amdgcn_mfma_f32_16x16x16f16(a.v, b.v, acc.v, 0, 0, 0);
  }
}

#if MLACHECK_FP8_MMA
// fp8 e4m3 fnuz operands of 16 x 16 x 32 tile products, bytes in shared memory (k counted in
// bytes): each lane's 8 bytes are one 64-bit operand, byte j the value the layout functions place.
static_assert(sizeof(long) == 8, "the fp8 MFMA builtin takes each lane's 8 bytes as a 64-bit long");
struct Fp8FragA {
  long v;  // the builtin's operand type
};
struct Fp8FragB {
  long v;
};

// A (m, k) = p[m * stride + k].
__device__ inline Fp8FragA load_a_fp8(const std::uint8_t* p, int stride) {
  const int l = lane();
  return {*reinterpret_cast<const long*>(p + mfma::fp8_a_row(l, 0) * stride + mfma::fp8_a_col(l, 0))};
}

// B (k, n) = p[n * stride + k].
__device__ inline Fp8FragB load_bt_fp8(const std::uint8_t* p, int stride) {
  const int l = lane();
  return {*reinterpret_cast<const long*>(p + mfma::fp8_bt_row(l, 0) * stride + mfma::fp8_bt_col(l, 0))};
}

// acc += A B, acc passed as the instruction's C: CDNA3's fp8 MFMA adds its products to C in fp32,
// so the running sum keeps fp32 without the NVIDIA side's from-zero product and separate add.
__device__ inline void mma_fp8(Acc& acc, const Fp8FragA& a, const Fp8FragB& b) {
  acc.v = __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a.v, b.v, acc.v, 0, 0, 0);
}
#endif

__device__ inline void store(const Acc& acc, float* p, int stride) {
  const int l = lane();
#pragma unroll
  for (int i = 0; i < Acc::kElems; ++i) p[acc_row(l, i) * stride + acc_col(l, i)] = acc.v[i];
}

}  // namespace mlacheck::kernels::mma
