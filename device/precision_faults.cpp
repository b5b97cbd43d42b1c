#include "device/precision_faults.hpp"

namespace mlacheck {

std::optional<IntermediatePrecision> precision_fault_setting(Fault f) {
  IntermediatePrecision s;
  switch (f) {
    case Fault::precision_partial_o_bf16:
      s.partial_o = DType::bf16;
      return s;
    case Fault::precision_running_o_bf16:
      s.running_o = DType::bf16;
      return s;
    case Fault::precision_running_o_fp16:
      s.running_o = DType::f16;
      return s;
    case Fault::precision_row_sum_bf16:
      s.row_sum = DType::bf16;
      return s;
    case Fault::precision_row_max_bf16:
      s.row_max = DType::bf16;
      return s;
    case Fault::precision_lse_bf16:
      s.lse = DType::bf16;
      return s;
    case Fault::precision_softmax_scale_bf16:
      s.softmax_scale = DType::bf16;
      return s;
    case Fault::precision_row_sum_drops_key:
      s.drop_one_key_from_normaliser = true;
      return s;
    default:
      return std::nullopt;
  }
}

}  // namespace mlacheck
