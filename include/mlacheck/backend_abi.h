/*
 * mlacheck backend ABI, version 1: how an MLA decode kernel outside mlacheck is tested by it.
 *
 * A backend is a shared library (C, C++, or anything that can export a C symbol) that exports
 *
 *     const mlacheck_backend_v1* mlacheck_backend_entry(uint32_t harness_abi_version);
 *
 * (MLACHECK_BACKEND_ENTRY names the symbol). The harness calls it once with the ABI version it
 * speaks (MLACHECK_BACKEND_ABI_VERSION); the backend returns its function table, or NULL when it
 * cannot speak that version. The harness refuses a table whose abi_version differs from its own
 * or whose struct_size is smaller than the harness's sizeof(mlacheck_backend_v1), naming the
 * library and both versions.
 *
 * One case, as the harness runs it:
 *   1. supports(problem): NULL when the backend can run the problem, else a reason; a refused
 *      case is SKIPPED with that reason and counted as not checked (never as a pass; mlacheck's
 *      built-in backend, unlike a plugin, fails the run on a refused curated case). The string
 *      must stay valid until the next call on the instance.
 *   2. workspace_bytes(problem): scratch the backend wants; the harness allocates it (guarded,
 *      in the backend's memory) and passes it in tensors->workspace.
 *   3. The harness stages every tensor in the backend's memory (device memory for
 *      MLACHECK_MEMORY_DEVICE, host memory for MLACHECK_MEMORY_HOST): inputs uploaded, outputs
 *      filled with a poison pattern (a NaN code no arithmetic produces), every allocation with
 *      guard bytes before and after it.
 *   4. run(problem, tensors, stream): the backend enqueues its work on `stream` (a hipStream_t /
 *      cudaStream_t, never NULL for device backends; NULL for host backends) and returns 0, or a
 *      non-zero value with a message in `error` (the case is ERRORED with that message). It must
 *      not synchronise the device nor free or keep any pointer it was given.
 *   5. The harness synchronises, reads the guards back (a write outside a buffer FAILS the case
 *      naming the buffer), downloads O and LSE, flags elements that still hold the poison
 *      (unwritten), and compares with its oracle.
 * A backend that crashes, hangs or aborts costs one ERRORED row: `mlacheck run` runs cases in
 * supervised worker processes.
 *
 * Layouts (row-major; shapes and strides are given in elements, and strides are authoritative):
 *   q           [total_q_tokens, heads, lk]            q_dtype
 *   kv_cache    [num_blocks, block_size, lk]           kv_dtype  (vLLM's [num_blocks, block_size,
 *                                                      1, lk] is the same bytes); the first
 *                                                      kv_lora_rank channels are the latent
 *                                                      (the values), the last rope_dim the rope
 *                                                      part of the keys; K = all lk channels
 *   block_table [batch, max_blocks_per_request]        int32; entries past a request's blocks -1
 *   kv_lens     [batch]                                int32; cached tokens, new ones included
 *   q_lens      [batch]                                int32; query tokens per request
 *   qo_indptr   [batch + 1]                            int32; prefix sum of q_lens
 *   kv_indptr   [batch + 1]                            int32; prefix sum of kv_lens
 *   o           [total_q_tokens, heads, kv_lora_rank]  o_dtype   (written)
 *   lse         [total_q_tokens, heads]                f32       (written when writes_lse)
 * Query token t of request r is row qo_indptr[r] + i (i < q_lens[r]); it attends causally to the
 * first kv_lens[r] - q_lens[r] + i + 1 cached tokens of its request (the decode convention: the
 * new tokens are the last q_lens[r] of the cache). Token j of request r lives in block
 * block_table[r][j / block_size], slot j % block_size. Scores are scale * q.k over all lk
 * channels; cache values are kv_scale * code for fp8 caches.
 * A request with kv_lens[r] == 0 is a padded row (CUDA-graph padding, a rank owning no KV): any
 * q_lens[r], its block-table row all -1 and never to be read; every query row that sees no token
 * gets O = 0 and LSE = -inf (the identity of a log-sum-exp merge).
 * lse is the log-sum-exp of the scaled scores, in the base the backend declares (lse_base).
 */
#ifndef MLACHECK_BACKEND_ABI_H
#define MLACHECK_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLACHECK_BACKEND_ABI_VERSION 1u
#define MLACHECK_BACKEND_ENTRY "mlacheck_backend_entry"

#if defined(_WIN32)
#define MLACHECK_BACKEND_EXPORT __declspec(dllexport)
#else
#define MLACHECK_BACKEND_EXPORT __attribute__((visibility("default")))
#endif

/* Storage dtypes. Values are codes: bf16/f16 as uint16, fp8 as uint8, f32 as IEEE binary32. */
typedef enum mlacheck_dtype {
  MLACHECK_DTYPE_F32 = 0,
  MLACHECK_DTYPE_BF16 = 1,
  MLACHECK_DTYPE_F16 = 2,
  MLACHECK_DTYPE_FP8_E4M3FN = 3,   /* OCP e4m3: NaN 0x7F/0xFF, no inf, max 448 */
  MLACHECK_DTYPE_FP8_E4M3FNUZ = 4, /* AMD e4m3 fnuz: NaN 0x80 only, no -0, max 240 */
  MLACHECK_DTYPE_INT32 = 5
} mlacheck_dtype;

typedef enum mlacheck_memory {
  MLACHECK_MEMORY_HOST = 0,   /* pointers are host memory; stream is NULL */
  MLACHECK_MEMORY_DEVICE = 1  /* pointers are device memory of the current GPU */
} mlacheck_memory;

typedef enum mlacheck_lse_base {
  MLACHECK_LSE_NATURAL = 0, /* lse = log(sum(exp(s))) */
  MLACHECK_LSE_LOG2 = 1     /* lse = log2(sum(exp2(s * log2(e)))) = natural lse / ln 2 */
} mlacheck_lse_base;

/* Values of mlacheck_backend_v1.p_dtype besides MLACHECK_DTYPE_F32 (P stays fp32),
 * MLACHECK_DTYPE_BF16 and MLACHECK_DTYPE_F16 (P rounded to that dtype for every problem). P in
 * fp8 has no tolerance model and is refused. */
typedef enum mlacheck_p_rounding {
  MLACHECK_P_UNDECLARED = -1, /* nothing declared: the generic rule */
  MLACHECK_P_Q_DTYPE = -2,    /* P rounded to the problem's q_dtype */
  /* P goes to the MMA input type S: kv_dtype when it is bf16 or f16, bf16 for fp8 queries (their
   * codes and the fp8 cache's widen to bf16 exactly), else q_dtype. When S is q_dtype or q is
   * fp8 P is rounded to it; otherwise (bf16 q with f16 kv or the reverse) it is split into
   * hi = round_S(P) and lo = round_S(P - hi), both multiplied. mlacheck's own kernels do this. */
  MLACHECK_P_MMA_INPUT = -3
} mlacheck_p_rounding;

/* The decode path the case asks for; a backend with one path may ignore it. */
typedef enum mlacheck_path_hint {
  MLACHECK_PATH_AUTO = 0,
  MLACHECK_PATH_PERSISTENT = 1,
  MLACHECK_PATH_SPLIT_KV = 2
} mlacheck_path_hint;

/* The problem: every field of mlacheck's descriptor, and the sizes derived from it. The arrays
 * are host memory, valid for the duration of the call that received them. */
typedef struct mlacheck_mla_problem {
  uint32_t struct_size; /* sizeof(mlacheck_mla_problem) as the harness built it */
  const char* name;     /* the case's name */
  const char* repro;    /* the canonical repro string: `mlacheck run --case "<repro>"` */
  /* descriptor fields */
  int32_t total_heads;  /* query heads of the model */
  int32_t tp;           /* tensor-parallel ranks */
  int32_t tp_rank;      /* the rank this problem runs */
  int32_t kv_lora_rank; /* Lv: width of the latent values and of O */
  int32_t rope_dim;     /* R */
  double scale;         /* softmax scale */
  int32_t block_size;   /* tokens per cache block */
  int32_t num_blocks;   /* blocks in the cache pool */
  int32_t q_dtype, kv_dtype, o_dtype; /* mlacheck_dtype */
  float kv_scale;       /* dequantisation scale of fp8 caches; 1 otherwise */
  int32_t path;         /* mlacheck_path_hint */
  int32_t num_splits;   /* split-KV splits per request; 0: the backend chooses */
  uint64_t seed;        /* the inputs' seed (informational) */
  /* derived sizes */
  int32_t heads;                  /* per rank: total_heads / tp */
  int32_t lk;                     /* kv_lora_rank + rope_dim */
  int32_t batch;                  /* requests */
  int32_t total_q_tokens;         /* sum of q_lens */
  int64_t total_kv_tokens;        /* sum of kv_lens */
  int32_t max_q_len, max_kv_len;
  int32_t max_blocks_per_request; /* block_table's second dimension */
  const int32_t* kv_lens;         /* [batch] host copy */
  const int32_t* q_lens;          /* [batch] host copy */
  /* fp8 queries (q_dtype an fp8 type, against a cache of the same type): q = q_scale * code; 1
   * otherwise. Added after the fields above: read it only when struct_size reaches past it. */
  float q_scale;
} mlacheck_mla_problem;

/* A strided view. shape[i] and strides[i] (elements, not bytes) for i < ndim; the rest 0. */
typedef struct mlacheck_tensor {
  void* data;
  int32_t dtype; /* mlacheck_dtype */
  int32_t ndim;
  int64_t shape[4];
  int64_t strides[4];
} mlacheck_tensor;

typedef struct mlacheck_mla_tensors {
  uint32_t struct_size;
  mlacheck_tensor q, kv_cache, block_table, kv_lens, q_lens, qo_indptr, kv_indptr; /* read */
  mlacheck_tensor o, lse;                                                         /* written */
  void* workspace; /* workspace_bytes(problem) bytes, poisoned; NULL when 0 were asked for */
  uint64_t workspace_bytes;
} mlacheck_mla_tensors;

typedef struct mlacheck_backend_v1 {
  uint32_t abi_version; /* MLACHECK_BACKEND_ABI_VERSION the backend was built against */
  uint32_t struct_size; /* sizeof(mlacheck_backend_v1) as the backend was built */
  const char* name;     /* short name for reports, e.g. "aiter-asm" */
  const char* version;  /* free text for reports, e.g. "0.1.4+gabc123" */
  int32_t memory;       /* mlacheck_memory */
  int32_t writes_lse;   /* 1 when run() writes lse; 0: lse is not compared */
  int32_t lse_base;     /* mlacheck_lse_base */
  /* Rounding points the kernel declares (mlacheck_p_rounding): how P (the softmax probabilities)
   * reaches P.V. A declared value also states that the row sum is accumulated in fp32 from P
   * before any rounding, that the online softmax's running max includes the current tile, and that
   * O is rounded once, from fp32, to o_dtype. Declared, the case is judged by the tight rule
   * (docs/tolerance.md) and, where that is tighter, against the oracle's O rounded to o_dtype;
   * MLACHECK_P_UNDECLARED (-1) gets the generic rule, which allows for P rounded to q_dtype and
   * summed rounded. */
  int32_t p_dtype;
  /* An instance on GPU device_index (host backends get 0). NULL on failure, with a message in
   * error. The harness makes device_index current before every call. */
  void* (*open)(int32_t device_index, char* error, size_t error_size);
  void (*close)(void* instance);
  const char* (*supports)(void* instance, const mlacheck_mla_problem* problem);
  uint64_t (*workspace_bytes)(void* instance, const mlacheck_mla_problem* problem);
  int32_t (*run)(void* instance, const mlacheck_mla_problem* problem, const mlacheck_mla_tensors* tensors,
                 void* stream, char* error, size_t error_size);
} mlacheck_backend_v1;

typedef const mlacheck_backend_v1* (*mlacheck_backend_entry_fn)(uint32_t harness_abi_version);

/* Optional, added within ABI version 1: the backend's declared support space. A plugin may export
 *
 *     const char* mlacheck_backend_space(uint32_t harness_space_version);
 *
 * (MLACHECK_BACKEND_SPACE names the symbol). The harness calls it once, after the entry point,
 * with the space text version it reads (MLACHECK_BACKEND_SPACE_VERSION); the backend returns the
 * canonical text of the space it supports (docs/backends.md; e.g. "space:lv_rope=512/64,512/0;
 * dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/bf16;heads=16..128"; a missing key allows everything of
 * that field), or NULL to declare none. The string must stay valid while the library is loaded.
 * `mlacheck run --backend` then draws its property sweep within that space and reports what it
 * excludes; supports() stays the final word. A plugin without the symbol declares no space (the
 * full sweep, refusals SKIPPED). A space the harness cannot read refuses the plugin, naming the
 * field. */
#define MLACHECK_BACKEND_SPACE_VERSION 1u
#define MLACHECK_BACKEND_SPACE "mlacheck_backend_space"
typedef const char* (*mlacheck_backend_space_fn)(uint32_t harness_space_version);

#ifdef __cplusplus
}
#endif

#endif /* MLACHECK_BACKEND_ABI_H */
