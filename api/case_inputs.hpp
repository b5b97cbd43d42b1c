#pragma once
// A case's inputs as the C API hands them out, shared by mlacheck_case_inputs (the whole pool)
// and mlacheck_case_inputs_by_block (the pool's shape and the blocks its requests read).
#include <cstdint>
#include <initializer_list>

#include "mlacheck/harness_api.h"

struct mlacheck_case;

namespace mlacheck::api {

// A row-major view of `data`: strides from the shape, in elements.
mlacheck_tensor contiguous(void* data, int32_t dtype, std::initializer_list<int64_t> shape);

// Throws MLACHECK_ERROR_WRONG_CASE naming `what` for a kv_gather case.
void require_mla(const mlacheck_case* c, const char* what);

// Makes the inputs and their codes, once; refuses a decode sequence (MLACHECK_ERROR_INVALID_ARGUMENT).
// threads: the requests are filled on up to that many threads (make_inputs).
void encode_inputs(mlacheck_case* c, int threads = 1);

// Throws MLACHECK_ERROR_INVALID_ARGUMENT when the caller's struct_size is below this library's.
void require_tensors_size(const mlacheck_mla_tensors* tensors);

// Fills `tensors` (its struct_size kept) with every input but kv_cache, which it
// leaves for the caller: q, block_table, kv_lens, q_lens, qo_indptr, kv_indptr, and o and lse
// with data NULL. encode_inputs must have run.
void fill_tensors_but_cache(const mlacheck_case* c, mlacheck_mla_tensors* tensors);

}  // namespace mlacheck::api
