#pragma once
// The persistent MLA decode launcher (UPSTREAM's persistent path, S1-S3): a grid of one block per
// resident block slot, each walking its CU's work list of the host plan (device/planner/), then a
// reduce kernel that merges the partials of split q tiles by log-sum-exp. Inputs are the
// device-side layout after head padding and page expansion (page size 1). Plain C++: no GPU
// types, so host code (the backend, the tests) calls it without the GPU compiler.
#include <cstdint>

#include "device/faults.hpp"
#include "device/persistent/persistent_shape.hpp"
#include "device/planner/metadata.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck::kernels {

// Device pointers (T = total_q_tokens, Hp = shape.padded_heads, Lk = lv + rope).
struct PersistentArgs {
  PersistentShape shape;
  MetadataInfo plan;                              // what the six buffers were sized and built with
  MetadataBuffers<const std::int32_t*> metadata;  // device copies of the six buffers: all or none
  const void* q = nullptr;                        // [T, Hp, Lk] in q_dtype
  const void* kv_cache = nullptr;                 // [slots, Lk] in kv_dtype (codes; value = code * kv_scale)
  const std::int32_t* kv_indices = nullptr;       // flat kv space of the plan's kv_indptr: a slot per token
  const std::int32_t* qo_indptr = nullptr;        // [batch + 1], the plan's
  float* partial_o = nullptr;                     // persistent_workspace(plan, lv).partial_o_floats
  float* partial_lse = nullptr;                   // persistent_workspace(plan, lv).partial_lse_floats
  void* o = nullptr;                              // [T, Hp, Lv] in o_dtype
  float* lse = nullptr;                           // [T, Hp], natural log
  // supports-accepts-mixed-dtypes (the instance dispatch, UPSTREAM R10), value-scale-k-times-v
  // (the scales, R11), cache-offset-32bit (R4) and the precision faults (the row-group attention); the other faults act
  // before the launch.
  FaultSet faults;
  // Keeps the portable kernel where the Hopper one would take the launch (the tests hold the two
  // against each other).
  bool portable_kernels = false;
};

// Whether this launch runs on the Hopper warpgroup kernel (persistent_wgmma_kernel.hpp): the shape,
// tiles and faults fit it (wgmma_dispatch.hpp's persistent_wgmma_fits: Lv 256 only), the current
// device loaded code built for sm_90a, and portable_kernels is off. False on every other build and
// device.
bool persistent_takes_wgmma(const PersistentArgs& args);

// Resident blocks of the persistent kernel for `s` and a batch whose longest request has max_q_len
// query tokens on the current device: compute_units x the occupancy per CU/SM of the kernel
// instance its row groups take. This is the num_cus to plan with (metadata_info). Throws
// std::invalid_argument for a shape persistent_unsupported() refuses, GpuError when the runtime
// query fails, std::runtime_error when the kernel cannot be resident at all.
int persistent_block_slots(const PersistentShape& s, int max_q_len, int compute_units);

// Enqueues the persistent kernel and the reduce on `stream`. Refuses before launching anything:
// a partial set of the six buffers (IncompleteMetadata naming the missing ones, UPSTREAM S1), no
// buffers at all, a shape persistent_unsupported() refuses, a missing pointer or a plan that
// metadata_info did not make (std::invalid_argument). GpuError when a launch fails.
void launch_mla_decode_persistent(const PersistentArgs& args, StreamHandle stream = nullptr);

}  // namespace mlacheck::kernels
