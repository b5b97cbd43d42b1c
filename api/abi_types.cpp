#include "api/abi_types.hpp"

namespace mlacheck::api {

std::int32_t abi_dtype(DType t) {
  switch (t) {
    case DType::f32: return MLACHECK_DTYPE_F32;
    case DType::bf16: return MLACHECK_DTYPE_BF16;
    case DType::f16: return MLACHECK_DTYPE_F16;
    case DType::fp8_e4m3fn: return MLACHECK_DTYPE_FP8_E4M3FN;
    case DType::fp8_e4m3fnuz: return MLACHECK_DTYPE_FP8_E4M3FNUZ;
  }
  return -1;
}

std::optional<DType> storage_dtype(std::int32_t abi_code) {
  switch (abi_code) {
    case MLACHECK_DTYPE_F32: return DType::f32;
    case MLACHECK_DTYPE_BF16: return DType::bf16;
    case MLACHECK_DTYPE_F16: return DType::f16;
    case MLACHECK_DTYPE_FP8_E4M3FN: return DType::fp8_e4m3fn;
    case MLACHECK_DTYPE_FP8_E4M3FNUZ: return DType::fp8_e4m3fnuz;
    default: return std::nullopt;
  }
}

std::string abi_dtype_name(std::int32_t abi_code) {
  if (abi_code == MLACHECK_DTYPE_INT32) return "int32";
  if (const auto t = storage_dtype(abi_code)) return std::string(to_string(*t));
  return "dtype code " + std::to_string(abi_code);
}

namespace {

std::int32_t abi_path(DecodePath path) {
  switch (path) {
    case DecodePath::automatic: return MLACHECK_PATH_AUTO;
    case DecodePath::persistent: return MLACHECK_PATH_PERSISTENT;
    case DecodePath::split_kv: return MLACHECK_PATH_SPLIT_KV;
  }
  return MLACHECK_PATH_AUTO;
}

}  // namespace

void fill_abi_problem(const MlaDecodeProblem& p, AbiProblem& out) {
  out.name = p.name;
  out.repro = to_repro(p);
  out.kv_lens.assign(p.kv_lens.begin(), p.kv_lens.end());
  out.q_lens.assign(p.q_lens.begin(), p.q_lens.end());
  std::int64_t total_kv = 0;
  for (int kv : p.kv_lens) total_kv += kv;

  mlacheck_mla_problem& r = out.record;
  r = mlacheck_mla_problem{};
  r.struct_size = sizeof(mlacheck_mla_problem);
  r.name = out.name.c_str();
  r.repro = out.repro.c_str();
  r.total_heads = p.total_heads;
  r.tp = p.tp;
  r.tp_rank = p.tp_rank;
  r.kv_lora_rank = p.kv_lora_rank;
  r.rope_dim = p.rope_dim;
  r.scale = p.scale;
  r.block_size = p.block_size;
  r.num_blocks = p.num_blocks;
  r.q_dtype = abi_dtype(p.q_dtype);
  r.kv_dtype = abi_dtype(p.kv_dtype);
  r.o_dtype = abi_dtype(p.o_dtype);
  r.kv_scale = p.kv_scale;
  r.path = abi_path(p.path);
  r.num_splits = p.num_splits;
  r.seed = p.seed;
  r.heads = heads(p);
  r.lk = lk(p);
  r.batch = batch(p);
  r.total_q_tokens = total_q_tokens(p);
  r.total_kv_tokens = total_kv;
  r.max_q_len = max_q_len(p);
  r.max_kv_len = max_kv_len(p);
  r.max_blocks_per_request = max_blocks_per_request(p);
  r.kv_lens = out.kv_lens.data();
  r.q_lens = out.q_lens.data();
}

}  // namespace mlacheck::api
