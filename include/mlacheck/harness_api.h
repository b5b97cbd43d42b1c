/*
 * mlacheck harness C API, version 1: mlacheck's cases, inputs, oracle, verdicts and reports for a
 * caller that runs the backend under test itself. The Python package (python/mlacheck) drives it
 * through ctypes, so Python never compiles against an interpreter's headers; any language with a
 * C FFI can do the same. libmlacheck_capi.so exports every function below. C99.
 *
 * One case, as a caller runs it:
 *   1. mlacheck_plan_open (or _open_repro) lists the cases; mlacheck_case_open opens one.
 *   2. mlacheck_case_problem: the problem (backend_abi.h's mlacheck_mla_problem, every field and
 *      derived size); mlacheck_case_inputs: its inputs in the layouts of backend_abi.h, as codes.
 *   3. The caller runs its backend. For outputs it stages itself it fills
 *      [front guard | O | back guard] with mlacheck_guard_pattern and mlacheck_poison_word, so
 *      unwritten elements and writes outside O are found as the built-in backend finds them.
 *   4. mlacheck_outcome_new collects what happened: the backend's name, O and LSE (host memory,
 *      strided), guarded buffers, or that the backend refused the case or raised.
 *   5. mlacheck_outcome_judge: the verdict row `mlacheck run` writes for the same case (the oracle
 *      is computed on first need), through the harness's one judging step.
 *   6. mlacheck_report_open/_append/_finish write report.csv, junit.xml and report.html;
 *      mlacheck_report_merge joins the reports of several processes into one such folder.
 *
 * Conventions:
 *   - Every function returns mlacheck_status; MLACHECK_OK is 0. On any other status,
 *     mlacheck_last_error() returns a message naming the function and what was wrong (a value and
 *     where it came from); it stays valid until the next failing call on the same thread. No C++
 *     exception crosses this boundary.
 *   - Handles are opaque. Each _open/_new has a _free; _free accepts NULL. A handle is used by one
 *     thread at a time; distinct handles may be used from distinct threads.
 *   - Strings and arrays a function hands out belong to the handle they came from and stay valid
 *     until it is freed (a case's inputs, problem and oracle outputs: until mlacheck_case_free).
 *   - Tensors use backend_abi.h's mlacheck_tensor: shape and strides in elements, strides
 *     authoritative, data in host memory.
 */
#ifndef MLACHECK_HARNESS_API_H
#define MLACHECK_HARNESS_API_H

#include <stddef.h>
#include <stdint.h>

#include "mlacheck/backend_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MLACHECK_HARNESS_API_VERSION 1u

#if defined(_WIN32)
#define MLACHECK_API __declspec(dllexport)
#else
#define MLACHECK_API __attribute__((visibility("default")))
#endif

typedef enum mlacheck_status {
  MLACHECK_OK = 0,
  MLACHECK_ERROR_INVALID_ARGUMENT = 1, /* the caller's input: a repro string, a tensor, an index */
  MLACHECK_ERROR_WRONG_CASE = 2,       /* the call does not apply to this case's kind */
  MLACHECK_ERROR_IO = 3,               /* a file or folder (scenario table, report folder) */
  MLACHECK_ERROR_INTERNAL = 4          /* a harness bug; the message says what */
} mlacheck_status;

typedef enum mlacheck_plan_kind {
  /* What `mlacheck run` runs: the oracle self-checks, every scenario (clean), the default sweep
   * and a property sweep of `size` cases (64 when size < 0). */
  MLACHECK_PLAN_DEFAULT = 0,
  /* The scenario table alone (scenarios/upstream.csv unless scenarios_file names another). */
  MLACHECK_PLAN_SCENARIOS = 1,
  /* `size` cases drawn from the property generators (64 when size < 0), sizes growing. */
  MLACHECK_PLAN_PROPERTIES = 2
} mlacheck_plan_kind;

typedef enum mlacheck_case_kind {
  MLACHECK_CASE_MLA_DECODE = 0,        /* runs on the caller's backend */
  MLACHECK_CASE_KV_GATHER = 1,         /* tests mlacheck's own gather kernels: SKIPPED here */
  MLACHECK_CASE_ORACLE_SELF_CHECK = 2  /* the oracle against its plain-loop twin; no backend */
} mlacheck_case_kind;

typedef struct mlacheck_plan mlacheck_plan;
typedef struct mlacheck_case mlacheck_case;
typedef struct mlacheck_outcome mlacheck_outcome;
typedef struct mlacheck_verdict mlacheck_verdict;
typedef struct mlacheck_report mlacheck_report;

/* MLACHECK_HARNESS_API_VERSION of the library; a caller built for another version must stop. */
MLACHECK_API uint32_t mlacheck_harness_api_version(void);
/* The message of the last failing call on this thread ("" when none failed). Never NULL. */
MLACHECK_API const char* mlacheck_last_error(void);

/* ---- plans ---------------------------------------------------------------------------------- */

/* seed seeds the generated cases (the default and property sweeps; scenarios carry their own);
 * scenarios_file: NULL or "" for the table shipped with mlacheck. */
MLACHECK_API mlacheck_status mlacheck_plan_open(int32_t kind, uint64_t seed, int32_t size, const char* scenarios_file,
                                                mlacheck_plan** out);
/* mlacheck_plan_open with the property sweep drawn within a support space: `space` is its canonical
 * text (core/support_space.hpp; e.g. "space:lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16;heads=16..128;
 * bs=1,16,64;max_q=8"; a missing key allows everything of that field). Every property case lies
 * inside the space and the sweep draws no kv_gather case; the default sweeps and scenarios are as
 * mlacheck_plan_open lists them. NULL or "": no space, as mlacheck_plan_open. A malformed space is
 * MLACHECK_ERROR_INVALID_ARGUMENT naming the field. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_plan_open_space(int32_t kind, uint64_t seed, int32_t size,
                                                      const char* scenarios_file, const char* space,
                                                      mlacheck_plan** out);
/* The plan of a named tier (smoke, pre-merge or nightly: plan/tiers/NAME.plan, shipped beside the
 * data tables), as `mlacheck run --tier NAME` runs it; `space` as in mlacheck_plan_open_space (NULL
 * or "": none). Another name is MLACHECK_ERROR_INVALID_ARGUMENT naming the tiers; a tier file this
 * install lacks is MLACHECK_ERROR_IO. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_plan_open_tier(const char* tier, const char* space, mlacheck_plan** out);
/* The plan of a plan file (plan/plan_file.hpp has its lines), as `mlacheck run --plan FILE` runs it;
 * `space` as in mlacheck_plan_open_space. A file that cannot be read, or a malformed line, is
 * MLACHECK_ERROR_IO naming file:line. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_plan_open_file(const char* path, const char* space, mlacheck_plan** out);
/* A support space checked: its canonical text and what of the sweep's problem space it excludes,
 * joined by "; " ("" when nothing). The strings stay valid until the next call of this function
 * on the same thread. A malformed space is MLACHECK_ERROR_INVALID_ARGUMENT naming the field. Added
 * within API version 1. */
MLACHECK_API mlacheck_status mlacheck_space_describe(const char* space, const char** canonical,
                                                     const char** excludes);
/* The plan's space as canonical text and what of the sweep's problem space it excludes, joined by
 * "; " (both "" for a plan opened without a space). Strings belong to the plan. Added within API
 * version 1. */
MLACHECK_API mlacheck_status mlacheck_plan_space(const mlacheck_plan* plan, const char** space,
                                                 const char** excludes);
/* The one case of a repro string (`mlacheck run --case "<repro>"`); a malformed one is refused
 * with the key and value at fault. */
MLACHECK_API mlacheck_status mlacheck_plan_open_repro(const char* repro, mlacheck_plan** out);
/* The known-bug table the plan's verdicts are settled with (scenarios/README.md has its columns):
 * a plan opens with the table shipped with mlacheck; `path` replaces it, NULL or "" leaves none. A
 * FAILED or ERRORED verdict of a case opened afterwards that an entry matches is KNOWN_BUG, as in
 * `mlacheck run`. A missing or malformed table is MLACHECK_ERROR_IO naming the file and line. */
MLACHECK_API mlacheck_status mlacheck_plan_set_known_bugs(mlacheck_plan* plan, const char* path);
MLACHECK_API void mlacheck_plan_free(mlacheck_plan* plan);
MLACHECK_API mlacheck_status mlacheck_plan_size(const mlacheck_plan* plan, int64_t* count);

/* ---- cases ---------------------------------------------------------------------------------- */

/* Case `index` of the plan, 0 <= index < size. The case does not depend on the plan afterwards. */
MLACHECK_API mlacheck_status mlacheck_case_open(const mlacheck_plan* plan, int64_t index, mlacheck_case** out);
MLACHECK_API void mlacheck_case_free(mlacheck_case* c);
/* The case's id, unique in its plan. */
MLACHECK_API mlacheck_status mlacheck_case_id(const mlacheck_case* c, const char** id);
/* The canonical repro string: `mlacheck run --case "<repro>"` replays the case alone. */
MLACHECK_API mlacheck_status mlacheck_case_repro(const mlacheck_case* c, const char** repro);
MLACHECK_API mlacheck_status mlacheck_case_kind_of(const mlacheck_case* c, int32_t* kind);
/* The case's op as the library's operation registry names it ("mla_decode", "kv_gather"); an
   oracle self-check names the op whose oracle it checks. */
MLACHECK_API mlacheck_status mlacheck_case_op(const mlacheck_case* c, const char** op);
/* Every op the library's registry holds, in registry order, ", "-separated ("mla_decode, kv_gather"):
   callers read the ops from here rather than keep a list of their own. */
MLACHECK_API mlacheck_status mlacheck_op_names(const char** names);
/* Why the caller's backend cannot run this case (kv_gather cases), or NULL when it can. */
MLACHECK_API mlacheck_status mlacheck_case_unsupported_reason(const mlacheck_case* c, const char** reason);

/* mla_decode and oracle self-check cases (MLACHECK_ERROR_WRONG_CASE otherwise). */
/* The problem: every descriptor field and derived size; name and repro filled; kv_lens and
 * q_lens point at host arrays of `batch` entries. */
MLACHECK_API mlacheck_status mlacheck_case_problem(const mlacheck_case* c, const mlacheck_mla_problem** problem);
/* "random" or "exact" (small integers): how the inputs were filled. */
MLACHECK_API mlacheck_status mlacheck_case_fill(const mlacheck_case* c, const char** fill);
/* The inputs in backend_abi.h's layouts, made on the first call with mlacheck's seeded fills and
 * encoded with its codecs: q and kv_cache as codes of q_dtype / kv_dtype, block_table
 * [batch, max_blocks_per_request] with -1 past each request's blocks, kv_lens, q_lens, qo_indptr,
 * kv_indptr (int32). o and lse describe the outputs the case expects (dtype, shape, contiguous
 * strides) with data NULL; workspace is NULL. `tensors->struct_size` must be set by the caller
 * to its sizeof(mlacheck_mla_tensors), at least this library's. Cache slots no request reads hold
 * a NaN code: a kernel that reads past kv_len poisons its output. A case whose blocks start at a
 * first_block > 0 (a pool past 4 GiB) is refused (MLACHECK_ERROR_INVALID_ARGUMENT): its pool is
 * handed out by block (mlacheck_case_inputs_by_block); a decode sequence too (its steps are cases
 * of their own: mlacheck_sequence_step_open). */
MLACHECK_API mlacheck_status mlacheck_case_inputs(mlacheck_case* c, mlacheck_mla_tensors* tensors);
/* The cache of a case as the pool blocks its requests read, for a caller that builds the pool
 * itself (mlacheck_case_inputs_by_block). */
typedef struct mlacheck_cache_blocks {
  uint32_t struct_size; /* set by the caller to its sizeof(mlacheck_cache_blocks) */
  /* The descriptor's first_block (repro key first_block): the requests' blocks are dealt from pool
   * block first_block on, so with first_block past 4 GiB of pool every row they read lies 2^32
   * bytes or more past the pool's base (UPSTREAM R4). */
  int32_t first_block;
  int64_t count;            /* pool blocks the requests read (every block id in block_table) */
  const int32_t* block_ids; /* [count] pool block ids, ascending */
  /* Codes of kv_dtype, [count, block_size, lk], contiguous: blocks[i] is pool block block_ids[i],
   * as mlacheck_case_inputs would hold it (the slots of a block no request reads hold a NaN code). */
  mlacheck_tensor blocks;
} mlacheck_cache_blocks;

/* Any one-step mla_decode case's inputs without the pool in host memory, for cases whose pool is
 * too large to hand out whole (those with first_block > 0, which mlacheck_case_inputs refuses):
 * `tensors` as mlacheck_case_inputs fills it, except kv_cache, whose data is NULL and whose shape
 * [num_blocks, block_size, lk] and dtype describe the whole pool; `cache` the blocks the requests
 * read. A caller allocates the pool at its full size (num_blocks x block_size x lk elements of
 * kv_dtype), fills it with kv_dtype's poison code (mlacheck_poison_word: the NaN the staging layer
 * fills a pool's other blocks with), and writes blocks[i] at block block_ids[i]; block_table then
 * indexes it as it is. `tensors->struct_size` and `cache->struct_size` must be set by the caller.
 * A decode sequence is refused (MLACHECK_ERROR_INVALID_ARGUMENT: mlacheck_sequence_step_open hands
 * out its steps), a kv_gather case too (MLACHECK_ERROR_WRONG_CASE). */
MLACHECK_API mlacheck_status mlacheck_case_inputs_by_block(mlacheck_case* c, mlacheck_mla_tensors* tensors,
                                                           mlacheck_cache_blocks* cache);
/* The oracle's outputs (double, computed on the first call): o [total_q_tokens, heads, Lv] and lse
 * [total_q_tokens, heads] in natural log, contiguous; `count_o`/`count_lse` get their sizes. A
 * decode sequence is refused (MLACHECK_ERROR_INVALID_ARGUMENT): each step has its own. */
MLACHECK_API mlacheck_status mlacheck_case_expected(mlacheck_case* c, const double** o, uint64_t* count_o,
                                                    const double** lse, uint64_t* count_lse);

/* ---- preparing cases ahead ------------------------------------------------------------------ */

/* Prepares the cases `indices[0..count)` of `plan` ahead of the caller, in that order, on
 * `threads` threads of this library (0: one per core; never more than `lookahead`): each case is
 * opened and, for an mla_decode case with inputs, its inputs made and encoded and its oracle run,
 * so mlacheck_case_inputs, _expected and mlacheck_outcome_judge find them made. At most
 * `lookahead` prepared cases wait to be taken (0: the library's default, one per host thread
 * from 4 to 32, as `mlacheck run --lookahead`); the cases being prepared share the host's threads
 * for their oracles by their work. The entries are copied: the plan may be freed before the
 * prefetch. */
typedef struct mlacheck_prefetch mlacheck_prefetch;
MLACHECK_API mlacheck_status mlacheck_prefetch_open(const mlacheck_plan* plan, const int64_t* indices, int64_t count,
                                                    int32_t lookahead, int32_t threads, mlacheck_prefetch** out);
/* The next case in order, waiting for its preparation; the caller owns it (mlacheck_case_free).
 * `error` is NULL, or what its preparation raised (valid until the next call on `prefetch`): the
 * case is then as mlacheck_case_open left it, and asking for its inputs raises the same error
 * again; `out` is NULL when even opening it failed. Past the last case:
 * MLACHECK_ERROR_INVALID_ARGUMENT. */
MLACHECK_API mlacheck_status mlacheck_prefetch_next(mlacheck_prefetch* prefetch, mlacheck_case** out,
                                                    const char** error);
/* Cancels: no further case is started, preparations under way finish (an oracle cannot be cut
 * short), cases not taken are freed. Cases already taken stay the caller's. */
MLACHECK_API void mlacheck_prefetch_free(mlacheck_prefetch* prefetch);
/* ---- decode sequences ----------------------------------------------------------------------- */

/* A decode sequence (an mla_decode case whose repro has steps > 1; docs/design.md "Decode
 * sequences") is `steps` decode steps over one cache pool, as an engine replays a captured CUDA
 * graph: a fixed batch of request slots, requests joining and leaving (their slots padded rows
 * of kv_len 0 before and after), every active request appending q_len tokens a step, and blocks
 * of departed requests handed to joiners with their stale tokens. A caller runs it as:
 *   1. mlacheck_case_sequence: the steps and the sizes that hold for all of them (a block table
 *      of max_blocks_per_request columns, a pool of num_blocks blocks, q/O of total_q_tokens rows);
 *   2. for k = 0, 1, ...: mlacheck_sequence_step_open gives step k as a one-step case (problem,
 *      inputs, oracle, outcome and verdict as for any case); mlacheck_case_written_rows the cache
 *      rows the step wrote, which the caller copies into the one pool it keeps across the steps;
 *   3. mlacheck_sequence_judge: the sequence's row from its steps' verdicts. */
typedef struct mlacheck_sequence_info {
  uint32_t struct_size;           /* set by the caller to its sizeof(mlacheck_sequence_info) */
  int32_t steps;                  /* 1 for a one-step case */
  int32_t batch;                  /* request slots */
  const int32_t* joins;           /* [batch]: the first step request r takes part in */
  const int32_t* leaves;          /* [batch]: the first step it no longer does (== joins: never active) */
  int32_t max_blocks_per_request; /* the longest block-table row of any step: a table kept across steps */
  int32_t max_kv_len;             /* the most cached tokens any request reaches */
} mlacheck_sequence_info;

/* The sequence an mla_decode case is (steps 1, joins 0 and leaves 1 for a one-step case). */
MLACHECK_API mlacheck_status mlacheck_case_sequence(mlacheck_case* c, mlacheck_sequence_info* info);
/* The next step of decode sequence `seq` as a one-step case (step 0 on the first call): its
 * problem is the step's (sequence_step: kv_lens of the step, 0 for padded slots; num_blocks and
 * first_block the sequence's), its inputs the pool as written so far with the block table of the
 * step (max_blocks_per_request of the step), its oracle the step's; its id and repro are the
 * sequence's. Each step is opened once, in order; past the last step, or on a one-step case,
 * MLACHECK_ERROR_INVALID_ARGUMENT. The step does not depend on `seq` afterwards. Free it with
 * mlacheck_case_free. */
MLACHECK_API mlacheck_status mlacheck_sequence_step_open(mlacheck_case* seq, mlacheck_case** step);
/* The cache rows step `step` wrote, in the order written: slots[i] = block * block_size + offset
 * in the pool, rows [count, lk] codes of kv_dtype, contiguous (count = rows->shape[0]). What an
 * engine's KV writer writes before the step: a joining request's whole cache, every other active
 * request's q_len new tokens. A case that is no step of a sequence: MLACHECK_ERROR_WRONG_CASE. */
MLACHECK_API mlacheck_status mlacheck_case_written_rows(mlacheck_case* step, const int64_t** slots,
                                                        mlacheck_tensor* rows);
/* The row of sequence `seq` from the verdicts of its steps, in step order: every step, or the
 * steps up to one that was ERRORED or SKIPPED (the sequence stops there). FAILED, ERRORED or
 * SKIPPED from the first step that was not PASSED, its reason starting "step k of n: " (and
 * saying which steps did not run and which passed before it); PASSED with the tensors of the
 * step that used most of its rms bound. Device and wall times are the steps' sums. */
MLACHECK_API mlacheck_status mlacheck_sequence_judge(mlacheck_case* seq, const mlacheck_verdict* const* steps,
                                                     int64_t count, mlacheck_verdict** out);

/* ---- outcomes and verdicts ------------------------------------------------------------------ */

/* What happened when the caller ran case `c` (which must outlive the outcome). */
MLACHECK_API mlacheck_status mlacheck_outcome_new(mlacheck_case* c, mlacheck_outcome** out);
MLACHECK_API void mlacheck_outcome_free(mlacheck_outcome* o);
/* For the row: backend name and version, device (e.g. "cpu", "NVIDIA H100 80GB HBM3"), decode
 * path if the backend names one; each may be NULL (left empty). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_backend(mlacheck_outcome* o, const char* name, const char* version,
                                                          const char* device, const char* path);
/* Milliseconds: the backend's device time if it measured one (else 0), and the case's wall time
 * as the caller measured it (the oracle's time is added by the harness). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_times(mlacheck_outcome* o, double device_ms, double wall_ms);
/* Where the backend's kernel rounds P, with the codes of mlacheck_backend_v1.p_dtype
 * (backend_abi.h: MLACHECK_P_UNDECLARED, MLACHECK_P_Q_DTYPE, MLACHECK_P_MMA_INPUT,
 * MLACHECK_DTYPE_F32/BF16/F16) and the same meaning: declared, the verdict uses the tight rule and
 * the kernel-faithful oracle; without this call the outcome is undeclared (the generic rule). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_p_rounding(mlacheck_outcome* o, int32_t p_dtype);
/* The backend refused the case (its supports() reason): the verdict is SKIPPED, which counts as
 * not checked (a backend under test may refuse a case; it never passes one so). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_skipped(mlacheck_outcome* o, const char* reason);
/* The backend failed (raised, returned an error, returned the wrong thing): ERRORED. */
MLACHECK_API mlacheck_status mlacheck_outcome_set_errored(mlacheck_outcome* o, const char* reason);
/* The typed kind of the skip or error above (docs/report-columns.md, skip_reason and error_kind):
 * `kind` names one, e.g. "not_enough_memory" (a resource: the case fits no memory here) or
 * "crashed" / "timed_out" (a worker process running the case died or hung). Without these calls a
 * skip is "unsupported" and an error "backend_exception". An unknown name, "" or "unknown" is
 * MLACHECK_ERROR_INVALID_ARGUMENT. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_outcome_set_skip_reason(mlacheck_outcome* o, const char* kind);
MLACHECK_API mlacheck_status mlacheck_outcome_set_error_kind(mlacheck_outcome* o, const char* kind);
/* O as the backend wrote it: dtype o_dtype, shape [total_q_tokens, heads, kv_lora_rank], any
 * strides. Elements holding o_dtype's poison code count as unwritten; `unwritten`, when not NULL,
 * adds flags of its own (one byte per element, row-major [total_q_tokens, heads, Lv]). A wrong
 * dtype or shape is MLACHECK_ERROR_INVALID_ARGUMENT naming what was given and what the problem
 * needs (the caller then records it with mlacheck_outcome_set_errored). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_o(mlacheck_outcome* o, const mlacheck_tensor* tensor,
                                                    const uint8_t* unwritten);
/* LSE: f32 [total_q_tokens, heads], any strides, in `base` (mlacheck_lse_base). Without this call
 * only O is compared (a backend that writes no LSE). */
MLACHECK_API mlacheck_status mlacheck_outcome_set_lse(mlacheck_outcome* o, const mlacheck_tensor* tensor, int32_t base,
                                                      const uint8_t* unwritten);
/* A buffer the caller staged with guards: `allocation` is a host copy of the whole allocation,
 * [guard | data_bytes of data | guard], the guards as mlacheck_guard_pattern wrote them. A changed
 * guard byte FAILS the case naming `buffer` and the side. Without any such call the row's
 * canaries column says "n/a". */
MLACHECK_API mlacheck_status mlacheck_outcome_check_guards(mlacheck_outcome* o, const char* buffer,
                                                           const void* allocation, uint64_t data_bytes);
/* The verdict: for mla_decode, compare O (and LSE) with the oracle under the tolerance derived for
 * the problem, as `mlacheck run` does; SKIPPED or ERRORED when set so; for kv_gather, SKIPPED with
 * the unsupported reason; for an oracle self-check, the self-check runs here (no outputs taken).
 * The verdict is then settled as every route settles a row (plan/case_settle.hpp): the caller's
 * backend is external, so its refusals stay SKIPPED, and a FAILED or ERRORED row matching the
 * plan's known-bug table (mlacheck_plan_set_known_bugs) is KNOWN_BUG.
 * An mla_decode outcome with neither O nor a skip/error is MLACHECK_ERROR_INVALID_ARGUMENT, and so
 * is O for a decode sequence (its steps are judged, then mlacheck_sequence_judge; a sequence the
 * backend refused or failed before any step ran is settled here, SKIPPED or ERRORED). */
MLACHECK_API mlacheck_status mlacheck_outcome_judge(mlacheck_outcome* o, mlacheck_verdict** out);

MLACHECK_API void mlacheck_verdict_free(mlacheck_verdict* v);
/* "PASSED", "FAILED", "ERRORED", "SKIPPED", "MISTRUSTED" or "KNOWN_BUG". */
MLACHECK_API mlacheck_status mlacheck_verdict_state(const mlacheck_verdict* v, const char** state);
/* 1 when the state fails a run (FAILED, ERRORED: `mlacheck run` then exits non-zero), else 0. */
MLACHECK_API mlacheck_status mlacheck_verdict_is_failure(const mlacheck_verdict* v, int32_t* failure);
/* The verdict's typed disposition, as report.csv's columns of the same names hold it
 * (docs/report-columns.md): skip_reason ("unsupported", "not_enough_memory", "no_device",
 * "not_checked_by_policy"), error_kind ("crashed", "timed_out", "device_lost",
 * "backend_exception", "harness_error", "backend_not_started"), fail_kind ("wrong_output",
 * "refused_curated") and caught_by ("comparison", "guard", "refusal", "crash", joined by '|');
 * each "" where it does not apply. Any pointer may be NULL (not wanted). The strings stay valid
 * until the verdict is freed. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_verdict_disposition(const mlacheck_verdict* v, const char** skip_reason,
                                                          const char** error_kind, const char** fail_kind,
                                                          const char** caught_by);
/* The row exactly as report.csv holds it: the header line and this row's record (RFC 4180, each
 * ending in a line feed); docs/report-columns.md names the columns. */
MLACHECK_API mlacheck_status mlacheck_verdict_csv(const mlacheck_verdict* v, const char** header, const char** record);

/* ---- cases run in processes of their own -------------------------------------------------- */

/* The watchdog limit of case `c`, as `mlacheck run` sets it (plan/run_plan.hpp case_timeout_s):
 * `base_s` plus time for its oracle and kernels, growing with kv tokens x query rows x heads x Lk.
 * `mlacheck run` uses base_s = 120. */
MLACHECK_API mlacheck_status mlacheck_case_timeout_s(const mlacheck_case* c, double base_s, double* limit_s);
/* How a case's process or device was lost (harness/lost_case.hpp words each kind's reason). */
typedef enum mlacheck_case_loss {
  MLACHECK_LOST_PROCESS_DIED = 1, /* "<process> died while running this case: <detail>" */
  MLACHECK_LOST_TIMED_OUT = 2,    /* "timed out after <limit_s> s (watchdog); <process> was killed" */
  MLACHECK_LOST_DEVICE_LOST = 3,  /* "device lost: <detail>" (a sticky GPU error after the case) */
} mlacheck_case_loss;
/* The case was lost: the verdict is ERRORED with the reason `mlacheck run` writes for such a case.
 * `detail` (how the process ended: "signal 11 (Segmentation fault)", "exit status 0", or the GPU
 * error) is required but for MLACHECK_LOST_TIMED_OUT, which uses `limit_s`. */
MLACHECK_API mlacheck_status mlacheck_outcome_set_lost(mlacheck_outcome* o, int32_t how, const char* process,
                                                       const char* detail, double limit_s);
/* A row another process made (mlacheck_verdict_csv's header and record, sent as text) as a
 * verdict of this process, e.g. to append to a report here. A malformed row:
 * MLACHECK_ERROR_INVALID_ARGUMENT naming what is wrong. */
MLACHECK_API mlacheck_status mlacheck_verdict_from_csv(const char* header, const char* record, mlacheck_verdict** out);

/* ---- reports -------------------------------------------------------------------------------- */

/* `dir` must be an existing folder; report.csv is created there (a row flushed per append). */
MLACHECK_API mlacheck_status mlacheck_report_open(const char* dir, mlacheck_report** out);
/* Refuses a verdict whose id the report already holds (ids key diff and merge). */
MLACHECK_API mlacheck_status mlacheck_report_append(mlacheck_report* r, const mlacheck_verdict* v);
/* Writes junit.xml and report.html from report.csv; title NULL for the default. */
/* The backend's support space (canonical text, as mlacheck_plan_open_space takes it): report.html
 * gets a section naming what of the problem space it excludes. NULL or "" removes it. A malformed
 * space is MLACHECK_ERROR_INVALID_ARGUMENT naming the field. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_report_set_space(mlacheck_report* report, const char* space);
MLACHECK_API mlacheck_status mlacheck_report_finish(mlacheck_report* r, const char* title);
MLACHECK_API void mlacheck_report_free(mlacheck_report* r);
/* Merges `count` report.csv files (the shards of one run, or the pytest-xdist workers' reports),
 * in the order given, into the folder `dir` (created when missing): report.csv, then junit.xml and
 * report.html from it as mlacheck_report_finish writes them (title NULL for the default), replacing
 * what the folder held. `rows`, when not NULL, gets the merged report's row count. Every input is
 * read before anything is written: a missing or damaged input (MLACHECK_ERROR_IO naming the file
 * and line), an id in two inputs (naming both files and lines), no inputs, or an input that is
 * dir's own report.csv leave the folder as it was. Added within API version 1. */
MLACHECK_API mlacheck_status mlacheck_report_merge(const char* const* inputs, int64_t count, const char* dir,
                                                   const char* title, int64_t* rows);

/* ---- shrinking (issue 28 item 3; docs/shrinking.md) ----------------------------------------- */

typedef struct mlacheck_shrink mlacheck_shrink;

/* Runs the caller's backend on the mla_decode case of `repro` (open it with
 * mlacheck_plan_open_repro) and returns the verdict mlacheck_outcome_judge gave it. The verdict
 * stays the caller's: it must stay valid until the callback is called again or mlacheck_shrink_run
 * returns. NULL stops the shrink: mlacheck_shrink_run then fails with MLACHECK_ERROR_INVALID_ARGUMENT
 * ("the judge callback failed"), and the caller reports what went wrong in it. */
typedef const mlacheck_verdict* (*mlacheck_shrink_judge)(const char* repro, void* user);

/* Shrinks the failing mla_decode case of `repro` as `mlacheck shrink` does: candidates in a fixed
 * order, each run through `judge`, moving to the first that fails the same way, at most max_steps
 * candidates (> 0) and none started after max_seconds (> 0); the result is re-run and fails the
 * same way, or the original is kept. A case that does not fail is kept, with stop "not failing".
 * A malformed repro string or a kv_gather case is MLACHECK_ERROR_INVALID_ARGUMENT. Added within API
 * version 1. */
MLACHECK_API mlacheck_status mlacheck_shrink_run(const char* repro, int32_t max_steps, double max_seconds,
                                                 mlacheck_shrink_judge judge, void* user, mlacheck_shrink** out);
MLACHECK_API void mlacheck_shrink_free(mlacheck_shrink* s);
/* The original's canonical repro, the result's (the original when it does not fail or nothing
 * smaller fails the same way), how the failure was matched ("FAILED O values"; "" when the original
 * does not fail), and why shrinking stopped: "not failing", "minimal", "max steps", "max seconds". */
MLACHECK_API mlacheck_status mlacheck_shrink_summary(const mlacheck_shrink* s, const char** original,
                                                     const char** shrunk, const char** failure,
                                                     const char** stop);
/* Candidates run (the original's run and the final re-runs not counted), steps taken to the
 * result, and seconds spent. */
MLACHECK_API mlacheck_status mlacheck_shrink_counts(const mlacheck_shrink* s, int32_t* candidates_run, int32_t* steps,
                                                    double* seconds);
/* Step `index` (0 <= index < steps): what it changed ("kv of request 3: 4096 -> 1") and the case after it. */
MLACHECK_API mlacheck_status mlacheck_shrink_step(const mlacheck_shrink* s, int32_t index, const char** change,
                                                  const char** repro);
/* A new verdict the caller frees: which 0, the original's row, with the result's repro in its
 * shrunk_repro column when the original fails; which 1, the result's final run. */
MLACHECK_API mlacheck_status mlacheck_shrink_verdict(const mlacheck_shrink* s, int32_t which, mlacheck_verdict** out);

/* ---- codes, poison, guards ------------------------------------------------------------------ */

/* Storage bytes of one element of dtype (mlacheck_dtype). */
MLACHECK_API mlacheck_status mlacheck_dtype_bytes(int32_t dtype, uint32_t* bytes);
/* The pattern outputs of `dtype` are poisoned with, as a 32-bit word that repeats the element's
 * code (bf16 0x7F9A7F9A, f16 0x7CD27CD2, f32 0x7FA5A5A5, fp8 e4m3fn 0x7F7F7F7F, e4m3fnuz
 * 0x80808080): for bf16, f16 and f32 a signalling NaN that no arithmetic or conversion writes (fp8
 * has none; docs/tolerance.md, Poison codes). Its low storage-bytes bytes are one element's code. */
MLACHECK_API mlacheck_status mlacheck_poison_word(int32_t dtype, uint32_t* word);
/* Bytes of each guard (before and after a buffer). */
MLACHECK_API mlacheck_status mlacheck_guard_bytes(uint64_t* bytes);
/* Writes the guard pattern; `size` must equal mlacheck_guard_bytes. */
MLACHECK_API mlacheck_status mlacheck_guard_pattern(uint8_t* out, uint64_t size);
/* codes of dtype -> float values, with mlacheck's codecs (the ones the oracle's inputs used). */
MLACHECK_API mlacheck_status mlacheck_decode(int32_t dtype, const void* codes, uint64_t count, float* values);
/* float values -> codes of dtype: round to nearest even; fp8 saturates (dtype_convert.hpp). */
MLACHECK_API mlacheck_status mlacheck_encode(int32_t dtype, const float* values, uint64_t count, void* codes);

#ifdef __cplusplus
}
#endif

#endif /* MLACHECK_HARNESS_API_H */
