#pragma once
// The precision of each fp32 intermediate of a decode kernel; f32 everywhere is the correct kernel.
// One struct for both sides of a precision mistake: the device's precision faults say which field
// each one changes (device/precision_faults.hpp), and the host's float twin of the kernel
// arithmetic rounds the same fields (reference/kernel_arithmetic_model.hpp). Each header says where
// the fields sit in its own arithmetic.
#include "core/dtype.hpp"

namespace mlacheck {

struct IntermediatePrecision {
  DType partial_o = DType::f32;
  DType running_o = DType::f32;
  DType row_sum = DType::f32;
  DType row_max = DType::f32;
  DType lse = DType::f32;
  DType softmax_scale = DType::f32;
  bool drop_one_key_from_normaliser = false;

  bool operator==(const IntermediatePrecision&) const = default;
};

}  // namespace mlacheck
