// mlacheck_case_inputs_by_block: a case's inputs with its cache as the pool blocks the requests
// read, so a pool past 4 GiB (UPSTREAM R4) reaches a caller without the pool in host memory.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "api/api_call.hpp"
#include "api/api_objects.hpp"
#include "api/case_inputs.hpp"
#include "core/dtype.hpp"
#include "core/mla_inputs.hpp"

using mlacheck::api::api_call;
using mlacheck::api::ApiError;
using mlacheck::api::require;

namespace {

// The block ids of the block table (every entry >= 0), ascending, each once.
std::vector<std::int32_t> blocks_read(const mlacheck::MlaDecodeInputs& in) {
  std::vector<std::int32_t> ids;
  for (std::int32_t id : in.block_table) {
    if (id >= 0) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// Copies the codes of the blocks `ids` out of the host cache (pool blocks [first_block,
// num_blocks), core/mla_inputs.hpp), one after another.
std::vector<std::byte> block_codes(const mlacheck::MlaDecodeProblem& p, const std::vector<std::byte>& cache_codes,
                                   const std::vector<std::int32_t>& ids) {
  const std::size_t element = mlacheck::storage_bytes(p.kv_dtype);
  const std::size_t block_bytes =
      static_cast<std::size_t>(p.block_size) * static_cast<std::size_t>(mlacheck::lk(p)) * element;
  std::vector<std::byte> out(ids.size() * block_bytes);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    // host_cache_index refuses (std::out_of_range, naming the slot) a block the host does not hold.
    const std::size_t first = mlacheck::host_cache_index(p, std::int64_t{ids[i]} * p.block_size) * element;
    if (first + block_bytes > cache_codes.size()) {
      throw ApiError(MLACHECK_ERROR_INTERNAL, "block " + std::to_string(ids[i]) + " ends past the host cache's " +
                                                  std::to_string(cache_codes.size()) + " bytes");
    }
    std::memcpy(out.data() + i * block_bytes, cache_codes.data() + first, block_bytes);
  }
  return out;
}

}  // namespace

extern "C" {

mlacheck_status mlacheck_case_inputs_by_block(mlacheck_case* c, mlacheck_mla_tensors* tensors,
                                              mlacheck_cache_blocks* cache) {
  return api_call("mlacheck_case_inputs_by_block", [&] {
    require(tensors, "tensors");
    require(cache, "cache");
    mlacheck::api::require_mla(require(c, "case"), "inputs");
    mlacheck::api::require_tensors_size(tensors);
    if (cache->struct_size < sizeof(mlacheck_cache_blocks)) {
      throw ApiError(MLACHECK_ERROR_INVALID_ARGUMENT, "cache->struct_size is " + std::to_string(cache->struct_size) +
                                                          ", this library fills " +
                                                          std::to_string(sizeof(mlacheck_cache_blocks)) +
                                                          " bytes (set it to sizeof(mlacheck_cache_blocks))");
    }
    mlacheck::api::encode_inputs(c);
    const mlacheck::MlaDecodeProblem& p = c->prepared.problem;
    if (!c->blocks_encoded) {
      c->block_ids = blocks_read(c->prepared.inputs);
      c->block_codes = block_codes(p, c->cache_codes, c->block_ids);
      c->blocks_encoded = true;
    }
    mlacheck::api::fill_tensors_but_cache(c, tensors);
    const mlacheck_mla_problem& r = c->abi->get();
    tensors->kv_cache = mlacheck::api::contiguous(nullptr, r.kv_dtype, {r.num_blocks, r.block_size, r.lk});
    const uint32_t caller_size = cache->struct_size;
    *cache = mlacheck_cache_blocks{};
    cache->struct_size = caller_size;
    cache->first_block = p.first_block;
    cache->count = static_cast<int64_t>(c->block_ids.size());
    cache->block_ids = c->block_ids.data();
    cache->blocks = mlacheck::api::contiguous(c->block_codes.data(), r.kv_dtype, {cache->count, r.block_size, r.lk});
  });
}

}  // extern "C"
