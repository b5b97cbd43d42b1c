#pragma once
// The matrix-multiply building block of the decode kernels: C += A B on 16 x 16 x 16 tiles of 16-bit
// operands (bf16 or f16, the MMA type T) read from shared memory, accumulated in fp32 registers,
// by one warp (NVIDIA) or one wavefront (CDNA). One interface, one implementation per platform:
//
//   NVIDIA (sm_80 and later): mma.sync.m16n8k16, two per 16 x 16 tile, operands through ldmatrix
//                             (mma_tile_mma_sync.hpp);
//   CDNA (gfx90a, gfx94x):    v_mfma_f32_16x16x16{bf16_1k,f16}, wave64, operands through ds_read
//                             (mma_tile_mfma.hpp).
//
// What a kernel may use, and all it may know of the warp width:
//   mma::kLanes                  lanes that hold one tile's fragments (32 or 64)
//   mma::lane(), mma::warp()     this thread's lane in, and index of, its fragment group
//   mma::Acc                     a 16 x 16 fp32 accumulator; value i (< Acc::kElems) of a lane sits
//                                at (acc_row(lane, i), acc_col(lane, i)) of the tile
//   mma::FragA<T>, FragB<T>      operand fragments, loaded by
//     load_a<T>(p, stride)        A (m, k) = p[m * stride + k]   (rows of A contiguous)
//     load_bt<T>(p, stride)       B (k, n) = p[n * stride + k]   (B stored transposed: q k^T)
//     load_b<T>(p, stride)        B (k, n) = p[k * stride + n]   (rows of B contiguous: P V)
//   mma::mma(acc, a, b)          acc += A B
//   mma::store(acc, p, stride)   p[row * stride + col] = acc (fp32 shared memory)
// Pointers are shared memory, 16-byte aligned at each of the 16 rows (stride a multiple of 8).
// Every lane of the fragment group calls each of these together (no lane may have branched away).
//
// fp8 e4m3 products where the GPU has them (MLACHECK_FP8_MMA, mma::kHasFp8Mma, in the device pass:
// NVIDIA sm_89 and later on e4m3fn, CDNA3 gfx94x on e4m3fnuz; mma::Fp8MmaType names the variant):
// 16 x 16 x 32 tiles of bytes, Fp8FragA / Fp8FragB through load_a_fp8 / load_bt_fp8 (A and B
// stored as rows, k counted in bytes), mma_fp8(acc, a, b).
#include "device/platform/gpu_runtime.hpp"

// 1 in the device pass of a target with fp8 products, 0 in every other pass (host passes
// included): NVIDIA sm_89 and later; CDNA3 (gfx940, gfx941, gfx942) where the compiler has the
// fp8 MFMA builtin (Debian's hipcc calls clang-15: asked, not assumed, so an older compiler
// builds the widened-code path instead of failing).
#if defined(__has_builtin)  // tested apart: `__has_builtin(...)` is a syntax error where undefined
#if __has_builtin(__builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8)
#define MLACHECK_HAS_MFMA_FP8_BUILTIN 1
#endif
#endif

#if defined(MLACHECK_GPU_CUDA) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define MLACHECK_FP8_MMA 1
#elif defined(MLACHECK_GPU_HIP) && defined(__HIP_DEVICE_COMPILE__) && \
    (defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)) && defined(MLACHECK_HAS_MFMA_FP8_BUILTIN)
#define MLACHECK_FP8_MMA 1
#else
#define MLACHECK_FP8_MMA 0
#endif

#if defined(MLACHECK_GPU_CUDA)
#include "device/kernels/mma_tile_mma_sync.hpp"
#elif defined(MLACHECK_GPU_HIP)
#include "device/kernels/mma_tile_mfma.hpp"
#endif
