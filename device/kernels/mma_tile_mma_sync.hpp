#pragma once
// mma_tile.hpp on NVIDIA: a 16 x 16 x 16 tile product is two mma.sync.m16n8k16 (columns 0-7 and
// 8-15), with operands loaded by ldmatrix.x4 (four 8 x 8 matrices of 16-bit values per call).
//
// Fragment layouts (PTX ISA, "Matrix Fragments for mma.m16n8k16"), lane = 4 g + t (g < 8, t < 4):
//   A  r[0]: (m g,     k 2t, 2t+1)   r[1]: (m g + 8, k 2t, 2t+1)
//      r[2]: (m g,     k 2t+8, 2t+9) r[3]: (m g + 8, k 2t+8, 2t+9)
//   B  half h (columns 8h .. 8h+7): r[2h]: (k 2t, 2t+1; n 8h + g)  r[2h+1]: (k 2t+8, 2t+9; n 8h + g)
//   C  v[4h + j]: (m g + 8 (j / 2), n 8h + 2t + j % 2)
// ldmatrix hands lane l the pair (row l / 4, columns 2 (l % 4), +1) of each 8 x 8 matrix (the
// transposed pair with .trans); lanes 8q .. 8q + 7 give the row addresses of matrix q. The address
// choices below put the four matrices in the register order above.
// Included through mma_tile.hpp only.
#include <cstdint>
#include <type_traits>

#include "core/dtype_convert.hpp"

namespace mlacheck::kernels::mma {

inline constexpr int kLanes = 32;
inline constexpr bool kHasFp8Mma = MLACHECK_FP8_MMA != 0;
using Fp8MmaType = fp8_e4m3fn_t;  // the OCP variant

__device__ inline int lane() { return static_cast<int>(threadIdx.x) % kLanes; }
__device__ inline int warp() { return static_cast<int>(threadIdx.x) / kLanes; }

struct Acc {
  static constexpr int kElems = 8;
  float v[kElems] = {};
};

__device__ inline int acc_row(int lane_id, int i) { return lane_id / 4 + 8 * ((i % 4) / 2); }
__device__ inline int acc_col(int lane_id, int i) { return 8 * (i / 4) + 2 * (lane_id % 4) + i % 2; }

template <class T>
struct FragA {
  std::uint32_t r[4];
};
template <class T>
struct FragB {
  std::uint32_t r[4];
};

namespace detail {

__device__ inline std::uint32_t shared_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ inline void ldmatrix_x4(std::uint32_t (&r)[4], const void* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
}

__device__ inline void ldmatrix_x4_trans(std::uint32_t (&r)[4], const std::uint16_t* row_address) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row_address)));
}

template <class T>
__device__ inline void mma_m16n8k16(float& d0, float& d1, float& d2, float& d3, const std::uint32_t (&a)[4],
                                    std::uint32_t b0, std::uint32_t b1) {
  if constexpr (std::is_same_v<T, bf16_t>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    static_assert(std::is_same_v<T, f16_t>, "mma.sync tiles take bf16 or f16");
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

#if MLACHECK_FP8_MMA
// D = A B from zero: the caller adds D to its fp32 accumulator. Ada's native fp8 products (and
// Hopper's wgmma ones) keep about 13 mantissa bits of an accumulator they are given
// (SageAttention2, DeepSeek-V3 3.5.2), so the running sum never goes through them. Hopper has no
// fp8 mma.sync: ptxas lowers this to f16 unpacks of the fragments and two f16 products
// (CHANGELOG.md, note 8).
__device__ inline void mma_m16n8k32_e4m3(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%10, %10, %10, %10};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1), "f"(0.0f));
}
#endif

}  // namespace detail

// Matrix q of the x4 load: rows 0-7 / 8-15 of A by q % 2, k 0-7 / 8-15 by q / 2.
template <class T>
__device__ inline FragA<T> load_a(const std::uint16_t* p, int stride) {
  const int l = lane();
  FragA<T> a;
  detail::ldmatrix_x4(a.r, p + (l % 8 + 8 * ((l / 8) % 2)) * stride + 8 * (l / 16));
  return a;
}

// Stored as rows n: matrix q covers n 0-7 / 8-15 by q / 2, k 0-7 / 8-15 by q % 2.
template <class T>
__device__ inline FragB<T> load_bt(const std::uint16_t* p, int stride) {
  const int l = lane();
  FragB<T> b;
  detail::ldmatrix_x4(b.r, p + (l % 8 + 8 * (l / 16)) * stride + 8 * ((l / 8) % 2));
  return b;
}

// Stored as rows k, transposed on load: matrix q covers k 0-7 / 8-15 by q % 2, n 0-7 / 8-15 by q / 2.
template <class T>
__device__ inline FragB<T> load_b(const std::uint16_t* p, int stride) {
  const int l = lane();
  FragB<T> b;
  detail::ldmatrix_x4_trans(b.r, p + (l % 8 + 8 * ((l / 8) % 2)) * stride + 8 * (l / 16));
  return b;
}

template <class T>
__device__ inline void mma(Acc& acc, const FragA<T>& a, const FragB<T>& b) {
  detail::mma_m16n8k16<T>(acc.v[0], acc.v[1], acc.v[2], acc.v[3], a.r, b.r[0], b.r[1]);
  detail::mma_m16n8k16<T>(acc.v[4], acc.v[5], acc.v[6], acc.v[7], a.r, b.r[2], b.r[3]);
}

// fp8 e4m3 (fn) operands of 16 x 16 x 32 tile products (two mma.sync.m16n8k32), bytes in shared
// memory, 16-byte aligned rows. The fragments hold, per lane, the 4 bytes (m or n g, k 4t .. 4t+3)
// and (k 16 + 4t ..) of each 16 x 32 or 32 x 8 operand (PTX ISA, "mma.m16n8k32"): the pairs of 16-bit
// values that ldmatrix hands out over 16-byte rows, so the 16-bit address patterns serve unchanged
// with k counted in bytes.
struct Fp8FragA {
  std::uint32_t r[4];
};
struct Fp8FragB {
  std::uint32_t r[4];
};

// A (m, k) = p[m * stride + k]: matrices rows 0-7 / 8-15 by q % 2, bytes 0-15 / 16-31 by q / 2.
__device__ inline Fp8FragA load_a_fp8(const std::uint8_t* p, int stride) {
  const int l = lane();
  Fp8FragA a;
  detail::ldmatrix_x4(a.r, p + (l % 8 + 8 * ((l / 8) % 2)) * stride + 16 * (l / 16));
  return a;
}

// B (k, n) = p[n * stride + k]: matrices n 0-7 / 8-15 by q / 2, bytes 0-15 / 16-31 by q % 2.
__device__ inline Fp8FragB load_bt_fp8(const std::uint8_t* p, int stride) {
  const int l = lane();
  Fp8FragB b;
  detail::ldmatrix_x4(b.r, p + (l % 8 + 8 * (l / 16)) * stride + 16 * ((l / 8) % 2));
  return b;
}

#if MLACHECK_FP8_MMA
// acc += A B, each half's product formed from zero and added in fp32 before the next is formed
// (four temporaries live, not eight: the kernels' register budget is tight).
__device__ inline void mma_fp8(Acc& acc, const Fp8FragA& a, const Fp8FragB& b) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    float d[4];
    detail::mma_m16n8k32_e4m3(d, a.r, b.r[2 * half], b.r[2 * half + 1]);
#pragma unroll
    for (int i = 0; i < 4; ++i) acc.v[4 * half + i] += d[i];
  }
}
#endif

// Each lane's column pairs are adjacent: one 8-byte store per pair (stride even).
__device__ inline void store(const Acc& acc, float* p, int stride) {
  const int l = lane();
#pragma unroll
  for (int i = 0; i < Acc::kElems; i += 2) {
    *reinterpret_cast<float2*>(p + acc_row(l, i) * stride + acc_col(l, i)) = make_float2(acc.v[i], acc.v[i + 1]);
  }
}

}  // namespace mlacheck::kernels::mma
