#include "device/hip_backend/staged_mla_tensors.hpp"

#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

#include "device/staging/abi_problem.hpp"

namespace mlacheck {

namespace {

std::string dims(const std::int64_t* v, int n) {
  std::string s = "[";
  for (int i = 0; i < n; ++i) s += (i > 0 ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// Checks `t` against a dense row-major tensor of `shape` and `dtype`, except that dimension 0's
// stride may exceed the dense one when `longer_rows` (block_table).
void check(const MlaDecodeProblem& p, const char* name, const mlacheck_tensor& t, std::int32_t dtype,
           std::initializer_list<std::int64_t> shape, bool longer_rows = false) {
  const std::string where = "hip backend: tensor " + std::string(name) + " of " + p.name + ": ";
  if (t.data == nullptr) throw std::invalid_argument(where + "data is NULL");
  if (t.dtype != dtype) {
    throw std::invalid_argument(where + "dtype " + std::to_string(t.dtype) + ", the problem says " +
                                std::to_string(dtype));
  }
  const int n = static_cast<int>(shape.size());
  if (t.ndim != n) {
    throw std::invalid_argument(where + "ndim " + std::to_string(t.ndim) + ", expected " + std::to_string(n));
  }
  std::int64_t want_shape[4] = {};
  std::int64_t want_strides[4] = {};
  int i = 0;
  for (std::int64_t extent : shape) want_shape[i++] = extent;
  std::int64_t stride = 1;
  for (int d = n - 1; d >= 0; --d) {
    want_strides[d] = stride;
    stride *= want_shape[d];
  }
  for (int d = 0; d < n; ++d) {
    if (t.shape[d] != want_shape[d]) {
      throw std::invalid_argument(where + "shape " + dims(t.shape, n) + ", the problem needs " + dims(want_shape, n));
    }
    const bool ok = t.strides[d] == want_strides[d] || (longer_rows && d == 0 && t.strides[d] > want_strides[d]);
    if (!ok) {
      throw std::invalid_argument(where + "strides " + dims(t.strides, n) + " (elements), the kernels read " +
                                  dims(want_strides, n));
    }
  }
}

}  // namespace

StagedMlaTensors staged_tensors(MlaDecodeStaging& staging) {
  StagedMlaTensors s;
  s.q = staging.q().data();
  s.kv_cache = staging.kv_cache().data();
  s.block_table = staging.block_table().as<std::int32_t>();
  s.block_table_stride = static_cast<int>(staging.abi_tensors().block_table.strides[0]);
  s.kv_lens = staging.kv_lens().as<std::int32_t>();
  s.qo_indptr = staging.qo_indptr().as<std::int32_t>();
  s.o = staging.o().data();
  s.lse = staging.lse().as<float>();
  return s;
}

StagedMlaTensors staged_tensors(const mlacheck_mla_tensors& t, const MlaDecodeProblem& p) {
  if (t.struct_size < sizeof(mlacheck_mla_tensors)) {
    throw std::invalid_argument("hip backend: mlacheck_mla_tensors of " + p.name + ": struct_size " +
                                std::to_string(t.struct_size) + " is smaller than " +
                                std::to_string(sizeof(mlacheck_mla_tensors)));
  }
  const std::int64_t tokens = total_q_tokens(p), h = heads(p), width = lk(p), requests = batch(p);
  check(p, "q", t.q, abi_dtype(p.q_dtype), {tokens, h, width});
  check(p, "kv_cache", t.kv_cache, abi_dtype(p.kv_dtype), {p.num_blocks, p.block_size, width});
  check(p, "block_table", t.block_table, MLACHECK_DTYPE_INT32, {requests, max_blocks_per_request(p)}, true);
  if (t.block_table.strides[0] > std::numeric_limits<std::int32_t>::max()) {
    throw std::invalid_argument("hip backend: tensor block_table of " + p.name + ": row stride " +
                                std::to_string(t.block_table.strides[0]) + " does not fit int32");
  }
  check(p, "kv_lens", t.kv_lens, MLACHECK_DTYPE_INT32, {requests});
  check(p, "qo_indptr", t.qo_indptr, MLACHECK_DTYPE_INT32, {requests + 1});
  check(p, "o", t.o, abi_dtype(p.o_dtype), {tokens, h, p.kv_lora_rank});
  check(p, "lse", t.lse, MLACHECK_DTYPE_F32, {tokens, h});
  StagedMlaTensors s;
  s.q = t.q.data;
  s.kv_cache = t.kv_cache.data;
  s.block_table = static_cast<const std::int32_t*>(t.block_table.data);
  s.block_table_stride = static_cast<int>(t.block_table.strides[0]);
  s.kv_lens = static_cast<const std::int32_t*>(t.kv_lens.data);
  s.qo_indptr = static_cast<const std::int32_t*>(t.qo_indptr.data);
  s.o = t.o.data;
  s.lse = static_cast<float*>(t.lse.data);
  return s;
}

}  // namespace mlacheck
