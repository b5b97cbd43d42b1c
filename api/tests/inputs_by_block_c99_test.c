/* mlacheck_case_inputs_by_block from C99: a case whose blocks start at a first_block is handed out
 * as the pool's shape and the blocks its requests read (mlacheck_case_inputs refuses it), each
 * block holding what the same case without first_block holds at the same request positions; a
 * pool past 4 GiB (the R4 scenario) comes without its pool in host memory; bad calls are refused
 * with a message. Exit status 0 when every check holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c99_checks.h"
#include "mlacheck/harness_api.h"

#define SHAPE "heads=16;lv=32;rope=16;kv=21,3;q=2,1;bs=4;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;seed=9"
static const char* kPooled = "mla_decode:name=pooled;" SHAPE ";first_block=9";
static const char* kWhole = "mla_decode:name=whole;" SHAPE;
enum { kLk = 48, kBlockSize = 4, kBlocksRead = 7 /* ceil(21/4) + ceil(3/4) */ };

static int is_bf16_nan(uint16_t code) { return (code & 0x7F80u) == 0x7F80u && (code & 0x7Fu) != 0; }

/* Index of `id` in the ascending ids, or -1. */
static int64_t find_block(const int32_t* ids, int64_t count, int32_t id) {
  for (int64_t i = 0; i < count; ++i) {
    if (ids[i] == id) return i;
  }
  return -1;
}

/* The caller's structs of an mlacheck_case_inputs_by_block call, zeroed, their sizes set. */
static void ready_by_block(mlacheck_mla_tensors* in, mlacheck_cache_blocks* cache) {
  memset(in, 0, sizeof *in);
  memset(cache, 0, sizeof *cache);
  in->struct_size = sizeof *in;
  cache->struct_size = sizeof *cache;
}

static void check_small_pooled_case(void) {
  mlacheck_case* pooled = open_one(kPooled);
  mlacheck_case* whole = open_one(kWhole);
  const char* reason = "unset";
  OK(mlacheck_case_unsupported_reason(pooled, &reason));
  CHECK(reason == NULL); /* offered, as every one-step mla_decode case */

  mlacheck_mla_tensors in;
  mlacheck_cache_blocks cache;
  memset(&in, 0, sizeof in);
  memset(&cache, 0, sizeof cache);
  in.struct_size = sizeof in;
  /* the whole pool is not handed out; the message names the call that hands it out by block */
  CHECK(mlacheck_case_inputs(pooled, &in) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "first_block=9") != NULL);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_case_inputs_by_block") != NULL);
  /* struct sizes the caller did not set, and NULL arguments */
  CHECK(mlacheck_case_inputs_by_block(pooled, &in, &cache) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "cache->struct_size is 0") != NULL);
  cache.struct_size = sizeof cache;
  CHECK(mlacheck_case_inputs_by_block(pooled, &in, NULL) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(mlacheck_case_inputs_by_block(NULL, &in, &cache) == MLACHECK_ERROR_INVALID_ARGUMENT);
  in.struct_size = 4;
  CHECK(mlacheck_case_inputs_by_block(pooled, &in, &cache) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "tensors->struct_size is 4") != NULL);
  in.struct_size = sizeof in;
  OK(mlacheck_case_inputs_by_block(pooled, &in, &cache));

  const mlacheck_mla_problem* p = NULL;
  OK(mlacheck_case_problem(pooled, &p));
  CHECK(p->num_blocks == 9 + kBlocksRead);
  /* kv_cache describes the whole pool and holds no data */
  CHECK(in.kv_cache.data == NULL && in.kv_cache.dtype == MLACHECK_DTYPE_BF16 && in.kv_cache.ndim == 3);
  CHECK(in.kv_cache.shape[0] == p->num_blocks && in.kv_cache.shape[1] == kBlockSize && in.kv_cache.shape[2] == kLk);
  CHECK(in.kv_cache.strides[0] == kBlockSize * kLk && in.kv_cache.strides[1] == kLk && in.kv_cache.strides[2] == 1);
  /* the other inputs as mlacheck_case_inputs hands them out */
  CHECK(in.q.data != NULL && in.q.shape[0] == 3 && in.q.shape[1] == 16 && in.q.shape[2] == kLk);
  CHECK(in.block_table.shape[0] == 2 && in.block_table.shape[1] == 6);
  CHECK(in.o.data == NULL && in.o.shape[2] == 32 && in.lse.dtype == MLACHECK_DTYPE_F32);

  /* the blocks the requests read: ascending, from first_block on, exactly the table's */
  CHECK(cache.first_block == 9 && cache.count == kBlocksRead);
  CHECK(cache.blocks.dtype == MLACHECK_DTYPE_BF16 && cache.blocks.ndim == 3);
  CHECK(cache.blocks.shape[0] == kBlocksRead && cache.blocks.shape[1] == kBlockSize && cache.blocks.shape[2] == kLk);
  CHECK(cache.blocks.strides[0] == kBlockSize * kLk && cache.blocks.strides[2] == 1);
  for (int64_t i = 0; i < cache.count; ++i) {
    CHECK(cache.block_ids[i] >= 9 && cache.block_ids[i] < p->num_blocks);
    if (i > 0) CHECK(cache.block_ids[i] > cache.block_ids[i - 1]);
  }
  const int32_t* table = in.block_table.data;
  for (int k = 0; k < 2 * 6; ++k) {
    if (table[k] >= 0) CHECK(find_block(cache.block_ids, cache.count, table[k]) >= 0);
  }

  /* a request's position holds the same codes as in the case without first_block */
  mlacheck_mla_tensors dense;
  memset(&dense, 0, sizeof dense);
  dense.struct_size = sizeof dense;
  OK(mlacheck_case_inputs(whole, &dense));
  const int32_t* dense_table = dense.block_table.data;
  const uint16_t* dense_pool = dense.kv_cache.data;
  const uint16_t* blocks = cache.blocks.data;
  const int kv_lens[2] = {21, 3};
  for (int r = 0; r < 2; ++r) {
    for (int pos = 0; pos < 4 * ((kv_lens[r] + 3) / 4); ++pos) {
      const int64_t i = find_block(cache.block_ids, cache.count, table[r * 6 + pos / kBlockSize]);
      const uint16_t* row = blocks + (i * kBlockSize + pos % kBlockSize) * kLk;
      const uint16_t* twin = dense_pool + ((int64_t)dense_table[r * 6 + pos / kBlockSize] * kBlockSize + pos % kBlockSize) * kLk;
      if (pos < kv_lens[r]) {
        CHECK(memcmp(row, twin, kLk * sizeof(uint16_t)) == 0);
        CHECK(!is_bf16_nan(row[0]));
      } else {
        CHECK(is_bf16_nan(row[0]) && is_bf16_nan(row[kLk - 1])); /* a block's tail no request reads */
      }
    }
  }

  /* any one-step case is handed out by block: first_block 0, the blocks those of the whole pool */
  mlacheck_mla_tensors by_block;
  mlacheck_cache_blocks whole_cache;
  ready_by_block(&by_block, &whole_cache);
  OK(mlacheck_case_inputs_by_block(whole, &by_block, &whole_cache));
  CHECK(by_block.kv_cache.data == NULL && by_block.kv_cache.shape[0] == dense.kv_cache.shape[0]);
  CHECK(whole_cache.first_block == 0 && whole_cache.count == kBlocksRead);
  for (int64_t i = 0; i < whole_cache.count; ++i) {
    const uint16_t* block = (const uint16_t*)whole_cache.blocks.data + i * kBlockSize * kLk;
    const uint16_t* in_pool = dense_pool + (int64_t)whole_cache.block_ids[i] * kBlockSize * kLk;
    CHECK(memcmp(block, in_pool, kBlockSize * kLk * sizeof(uint16_t)) == 0);
  }
  mlacheck_case_free(pooled);
  mlacheck_case_free(whole);
}

/* The R4 scenario's case: a 4 GiB pool, handed out without it. */
static void check_pool_past_4gib(void) {
  mlacheck_plan* plan = NULL;
  OK(mlacheck_plan_open(MLACHECK_PLAN_SCENARIOS, 1, 0, NULL, &plan));
  int64_t size = 0;
  OK(mlacheck_plan_size(plan, &size));
  mlacheck_case* c = NULL;
  for (int64_t i = 0; i < size && c == NULL; ++i) {
    mlacheck_case* candidate = NULL;
    const char* id = NULL;
    OK(mlacheck_case_open(plan, i, &candidate));
    OK(mlacheck_case_id(candidate, &id));
    if (strcmp(id, "scenario.r4_dsv3_past_4gib_split") == 0) {
      c = candidate;
    } else {
      mlacheck_case_free(candidate);
    }
  }
  mlacheck_plan_free(plan);
  CHECK(c != NULL);
  if (c == NULL) return;
  const char* reason = "unset";
  OK(mlacheck_case_unsupported_reason(c, &reason));
  CHECK(reason == NULL);
  mlacheck_mla_tensors in;
  mlacheck_cache_blocks cache;
  ready_by_block(&in, &cache);
  OK(mlacheck_case_inputs_by_block(c, &in, &cache));
  const uint64_t pool_bytes = (uint64_t)in.kv_cache.shape[0] * (uint64_t)in.kv_cache.shape[1] * (uint64_t)in.kv_cache.shape[2] * 2u;
  CHECK(pool_bytes > (UINT64_C(1) << 32));
  CHECK(cache.first_block == 116600);
  /* every row read lies past 2^32 bytes; kv 300,1200,37 at block size 32: 10 + 38 + 2 blocks */
  CHECK(cache.count == 50);
  CHECK((uint64_t)cache.block_ids[0] * 32u * 576u * 2u >= (UINT64_C(1) << 32));
  mlacheck_case_free(c);
}

static void check_refusals(void) {
  mlacheck_mla_tensors in;
  mlacheck_cache_blocks cache;
  ready_by_block(&in, &cache);
  mlacheck_case* gather = open_one("kv_gather:kv=12,5;bs=4");
  int32_t kind = -1; /* the kind the registry states for each op */
  OK(mlacheck_case_kind_of(gather, &kind));
  CHECK(kind == MLACHECK_CASE_KV_GATHER);
  CHECK(mlacheck_case_inputs_by_block(gather, &in, &cache) == MLACHECK_ERROR_WRONG_CASE);
  CHECK(strstr(mlacheck_last_error(), "mlacheck_case_inputs_by_block: ") == mlacheck_last_error());
  mlacheck_case_free(gather);
  mlacheck_case* sequence = open_one("mla_decode:kv=9,4;q=1,1;steps=3;join=0,1;heads=16;lv=32;rope=16;bs=4");
  OK(mlacheck_case_kind_of(sequence, &kind));
  CHECK(kind == MLACHECK_CASE_MLA_DECODE);
  CHECK(mlacheck_case_inputs_by_block(sequence, &in, &cache) == MLACHECK_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mlacheck_last_error(), "decode sequence of 3 steps") != NULL);
  mlacheck_case_free(sequence);
}

int main(void) {
  check_small_pooled_case();
  check_pool_past_4gib();
  check_refusals();
  if (failures == 0) printf("mlacheck_case_inputs_by_block from C99: every check held\n");
  return failures == 0 ? 0 : 1;
}
