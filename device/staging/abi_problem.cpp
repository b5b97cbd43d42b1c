#include "device/staging/abi_problem.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

#include "core/error.hpp"

namespace mlacheck {

namespace {

std::vector<std::int32_t> to_int32(const std::vector<int>& v) { return {v.begin(), v.end()}; }

// The first field (or array element) where two ABI problems differ, or "" when none does.
std::string first_difference(const mlacheck_mla_problem& a, const mlacheck_mla_problem& b) {
#define MLACHECK_SAME(field)                                                                            \
  if (a.field != b.field) {                                                                             \
    return #field " (" + std::to_string(a.field) + ", the repro says " + std::to_string(b.field) + ")"; \
  }
  MLACHECK_SAME(total_heads);
  MLACHECK_SAME(tp);
  MLACHECK_SAME(tp_rank);
  MLACHECK_SAME(kv_lora_rank);
  MLACHECK_SAME(rope_dim);
  MLACHECK_SAME(scale);
  MLACHECK_SAME(block_size);
  MLACHECK_SAME(num_blocks);
  MLACHECK_SAME(q_dtype);
  MLACHECK_SAME(kv_dtype);
  MLACHECK_SAME(o_dtype);
  MLACHECK_SAME(kv_scale);
  MLACHECK_SAME(q_scale);
  MLACHECK_SAME(path);
  MLACHECK_SAME(num_splits);
  MLACHECK_SAME(seed);
  MLACHECK_SAME(heads);
  MLACHECK_SAME(lk);
  MLACHECK_SAME(batch);
  MLACHECK_SAME(total_q_tokens);
  MLACHECK_SAME(total_kv_tokens);
  MLACHECK_SAME(max_q_len);
  MLACHECK_SAME(max_kv_len);
  MLACHECK_SAME(max_blocks_per_request);
#undef MLACHECK_SAME
  for (int r = 0; r < b.batch; ++r) {
    if (a.kv_lens == nullptr || a.kv_lens[r] != b.kv_lens[r]) return "kv_lens[" + std::to_string(r) + "]";
    if (a.q_lens == nullptr || a.q_lens[r] != b.q_lens[r]) return "q_lens[" + std::to_string(r) + "]";
  }
  return "";
}

}  // namespace

AbiMlaProblem::AbiMlaProblem(const MlaDecodeProblem& p) : problem_(with_defaults(p)) {
  validate(problem_);
  const MlaDecodeProblem& q = problem_;
  name_ = q.name;
  repro_ = to_repro(q);
  kv_lens_ = to_int32(q.kv_lens);
  q_lens_ = to_int32(q.q_lens);
  abi_.struct_size = sizeof(mlacheck_mla_problem);
  abi_.name = name_.c_str();
  abi_.repro = repro_.c_str();
  abi_.total_heads = q.total_heads;
  abi_.tp = q.tp;
  abi_.tp_rank = q.tp_rank;
  abi_.kv_lora_rank = q.kv_lora_rank;
  abi_.rope_dim = q.rope_dim;
  abi_.scale = q.scale;
  abi_.block_size = q.block_size;
  abi_.num_blocks = q.num_blocks;
  abi_.q_dtype = abi_dtype(q.q_dtype);
  abi_.kv_dtype = abi_dtype(q.kv_dtype);
  abi_.o_dtype = abi_dtype(q.o_dtype);
  abi_.kv_scale = q.kv_scale;
  abi_.path = abi_path(q.path);
  abi_.num_splits = q.num_splits;
  abi_.seed = q.seed;
  abi_.heads = heads(q);
  abi_.lk = lk(q);
  abi_.batch = batch(q);
  abi_.total_q_tokens = total_q_tokens(q);
  abi_.total_kv_tokens = kv_indptr(q).back();
  abi_.max_q_len = max_q_len(q);
  abi_.max_kv_len = max_kv_len(q);
  abi_.max_blocks_per_request = max_blocks_per_request(q);
  abi_.kv_lens = kv_lens_.data();
  abi_.q_lens = q_lens_.data();
  abi_.q_scale = q.q_scale;
}

mlacheck_dtype abi_dtype(DType t) {
  switch (t) {
    case DType::f32: return MLACHECK_DTYPE_F32;
    case DType::bf16: return MLACHECK_DTYPE_BF16;
    case DType::f16: return MLACHECK_DTYPE_F16;
    case DType::fp8_e4m3fn: return MLACHECK_DTYPE_FP8_E4M3FN;
    case DType::fp8_e4m3fnuz: return MLACHECK_DTYPE_FP8_E4M3FNUZ;
  }
  throw std::invalid_argument("abi_dtype: unknown DType " + std::to_string(static_cast<int>(t)));
}

std::optional<DType> storage_dtype_from_abi(std::int32_t code) {
  switch (code) {
    case MLACHECK_DTYPE_F32: return DType::f32;
    case MLACHECK_DTYPE_BF16: return DType::bf16;
    case MLACHECK_DTYPE_F16: return DType::f16;
    case MLACHECK_DTYPE_FP8_E4M3FN: return DType::fp8_e4m3fn;
    case MLACHECK_DTYPE_FP8_E4M3FNUZ: return DType::fp8_e4m3fnuz;
    default: return std::nullopt;
  }
}

DType dtype_from_abi(std::int32_t code, const char* what) {
  if (const std::optional<DType> t = storage_dtype_from_abi(code)) return *t;
  throw std::invalid_argument(std::string(what) + ": dtype code " + std::to_string(code) +
                              " is not a floating-point mlacheck_dtype (0-4)");
}

std::optional<PRoundingPoint> p_rounding_from_abi(std::int32_t code) {
  switch (code) {
    case MLACHECK_P_UNDECLARED:
      return PRoundingPoint::undeclared;
    case MLACHECK_P_Q_DTYPE:
      return PRoundingPoint::to_q_dtype;
    case MLACHECK_P_MMA_INPUT:
      return PRoundingPoint::to_mma_input;
    case MLACHECK_DTYPE_F32:
      return PRoundingPoint::kept_f32;
    case MLACHECK_DTYPE_BF16:
      return PRoundingPoint::to_bf16;
    case MLACHECK_DTYPE_F16:
      return PRoundingPoint::to_f16;
    default:
      return std::nullopt;
  }
}

mlacheck_path_hint abi_path(DecodePath path) {
  switch (path) {
    case DecodePath::automatic: return MLACHECK_PATH_AUTO;
    case DecodePath::persistent: return MLACHECK_PATH_PERSISTENT;
    case DecodePath::split_kv: return MLACHECK_PATH_SPLIT_KV;
  }
  return MLACHECK_PATH_AUTO;
}

MlaDecodeProblem problem_from_abi(const mlacheck_mla_problem& abi) {
  if (abi.struct_size < sizeof(mlacheck_mla_problem)) {
    throw std::invalid_argument("mlacheck_mla_problem: struct_size " + std::to_string(abi.struct_size) +
                                " is smaller than the " + std::to_string(sizeof(mlacheck_mla_problem)) +
                                " bytes of ABI version " + std::to_string(MLACHECK_BACKEND_ABI_VERSION));
  }
  if (abi.repro == nullptr) throw std::invalid_argument("mlacheck_mla_problem: repro is NULL");
  const AbiMlaProblem parsed(parse_mla_decode(abi.repro));
  if (const std::string field = first_difference(abi, parsed.get()); !field.empty()) {
    throw std::invalid_argument("mlacheck_mla_problem of '" + parsed.problem().name + "': field " + field +
                                " disagrees with its repro string");
  }
  return parsed.problem();
}

}  // namespace mlacheck
