#pragma once
// The attention step of the mla_decode pipeline, one per path. A step is prepared before the timed
// region -- its intermediates allocated, the persistent plan built on the host and uploaded -- and
// enqueued inside it, so device time covers kernels only.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/mla_problem.hpp"
#include "device/hip_backend/decode_intermediates.hpp"
#include "device/faults.hpp"
#include "device/platform/device_info.hpp"
#include "device/platform/stream_handle.hpp"

namespace mlacheck {

class SequencePlans;

// The step's device inputs and outputs, after head padding and page expansion.
struct DecodeIo {
  const void* q = nullptr;                   // [tokens, padded_heads, Lk]
  const void* kv_cache = nullptr;            // [slots, Lk]
  const std::int32_t* kv_indices = nullptr;  // [kv tokens]
  const std::int32_t* kv_indptr = nullptr;   // [batch + 1]
  const std::int32_t* qo_indptr = nullptr;   // [batch + 1]
  void* o = nullptr;                         // [tokens, padded_heads, Lv]
  float* lse = nullptr;                      // [tokens, padded_heads]
  StreamHandle stream = nullptr;             // where the step's kernels are enqueued
};

struct PreparedDecode {
  std::function<void()> enqueue;
  int work_count = 0;  // RunDiagnostics::num_splits: splits per request, or work items
};

// `faults` may switch on the historic mistakes of each step: split-KV tile-width-from-lk,
// non-pow2-qlen-rows-collapse and padded-fp8-single-request; persistent persistent-buffers-partial,
// metadata-unpadded-heads, metadata-sized-for-single-token, kernel-ignores-page-size (its plan) and
// supports-accepts-mixed-dtypes; both value-scale-k-times-v. `plans` (a decode sequence's session;
// null for one problem) gives the persistent launch its plan step by step, where fault
// plan-stale-at-replay (R5) branches (sequence_plans.hpp).
PreparedDecode prepare_split_kv_decode(const MlaDecodeProblem& p, const DeviceInfo& info, const DecodeIo& io,
                                       DecodeIntermediates& scratch, const FaultSet& faults);
PreparedDecode prepare_persistent_decode(const MlaDecodeProblem& p, const DeviceInfo& info, const DecodeIo& io,
                                         DecodeIntermediates& scratch, const FaultSet& faults,
                                         SequencePlans* plans = nullptr);

// qo_indptr as the pipeline builds it, for the device and for the persistent plan alike. Fault
// qo-indptr-assumes-single-token (UPSTREAM S3) builds it as arange(batch + 1), which is right only
// when every request has one query token.
std::vector<std::int32_t> decode_qo_indptr(const MlaDecodeProblem& p, const FaultSet& faults);

// Device bytes of each path's own buffers: partials, and for persistent the six plan buffers.
std::size_t split_kv_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info);
std::size_t persistent_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info);

}  // namespace mlacheck
