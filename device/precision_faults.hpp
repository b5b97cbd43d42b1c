#pragma once
// What each precision fault (faults.hpp, kPrecisionFaults) does, as a setting of the kernel's
// intermediates (core/intermediate_precision.hpp), the struct the float host twin of the kernel
// arithmetic (reference/kernel_arithmetic_model) takes too, so a fault replays on the host as it
// is. Each fault changes exactly one field.
//
// Where each field sits in the kernels (device/kernels/precision_fault_points.hpp):
//   partial_o      a split partial's O as stored for the merge (split-KV stage 1, persistent
//                  items of a split q tile); unsplit rows are unaffected
//   running_o      the online-softmax accumulator, rounded after each KV tile's O * alpha + P V
//   row_sum        the running sum l = l * alpha + tile sum, rounded after each KV tile
//   row_max        the running max as kept for the next tile's alpha and the LSE; the tile that
//                  found it takes its exponents against the fp32 value
//   lse            each row group's LSE (partial or final) as written
//   softmax_scale  the softmax scale x kv_scale as the kernel takes it
//   drop_one_key_from_normaliser
//                  key 0 of each KV range one row-group attention walks (a split's share, a work
//                  item's piece, or the whole row) is left out of the row sum, not out of P V
#include <optional>

#include "core/intermediate_precision.hpp"
#include "device/faults.hpp"

namespace mlacheck {

// The setting fault `f` puts in place of the all-fp32 kernel; nullopt for a fault that is no
// precision fault.
std::optional<IntermediatePrecision> precision_fault_setting(Fault f);

}  // namespace mlacheck
