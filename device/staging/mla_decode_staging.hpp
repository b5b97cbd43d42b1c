#pragma once
// One mla_decode problem's tensors staged in a backend's memory, in exactly the engine layouts of
// include/mlacheck/backend_abi.h, and read back after the backend ran. Every device backend -- the
// built-in hip backend and plugins alike -- and every host (CPU) plugin is judged by this one path:
//   inputs  q, kv_cache encoded with core's bit-exact codecs; block_table [batch,
//           max_blocks_per_request] int32 with -1 past each request's blocks; kv_lens, q_lens,
//           qo_indptr, kv_indptr int32;
//   outputs o (o_dtype) and lse (f32) poisoned; the workspace (when asked for) poisoned;
//   guards  256 canary bytes before and after every buffer, the backend's own intermediates
//           included when it adds them to buffers().
// collect() checks every guard, downloads O and LSE, flags elements that still hold the poison and
// converts a base-2 LSE to natural log (the oracle's base). Kernel knowledge stays out of here.
//
// A decode sequence (core/mla_sequence.hpp) is staged once (for_sequence) and restaged every step
// (mla_decode_restage.cpp): the same buffers throughout, as a captured CUDA graph's are, the cache
// pool kept between steps and only the slots each step wrote copied in.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "device/staging/abi_problem.hpp"
#include "device/staging/guarded_buffer_set.hpp"
#include "device/staging/run_result.hpp"
#include "mlacheck/backend_abi.h"

namespace mlacheck {

enum class LseBase : std::uint8_t { natural, log2 };

// The ABI's lse_base field as LseBase; std::invalid_argument naming the value otherwise.
LseBase lse_base_from_abi(std::int32_t code);

// Bytes MlaDecodeStaging allocates for p without a workspace: q, the whole cache pool (first_block
// included), the tables and the outputs, guards counted.
std::uint64_t mla_staging_bytes(const MlaDecodeProblem& p);

class MlaDecodeStaging {
 public:
  // Stages `in` (from make_inputs(p)) in `memory`. Throws InvalidProblem for an invalid problem,
  // std::invalid_argument naming the tensor when `in` does not match p's sizes or its block table
  // addresses a block outside the pool, and for device memory in a build without a GPU; GpuError
  // when a device allocation or copy fails. Device flavour: on the calling thread's current GPU.
  MlaDecodeStaging(const MlaDecodeProblem& p, const MlaDecodeInputs& in, StagingMemory memory,
                   std::uint64_t workspace_bytes = 0);
  MlaDecodeStaging(const MlaDecodeStaging&) = delete;
  MlaDecodeStaging& operator=(const MlaDecodeStaging&) = delete;

  // The buffers of the whole sequence `seq`, allocated once and sized for every step: q, O and LSE
  // (the same every step: the batch and q_lens are fixed), the pool of the sequence's num_blocks,
  // the block table with a row stride of sequence_max_blocks_per_request(seq), the per-request
  // arrays. Everything starts poisoned (the pool with kv_dtype's NaN code) and problem() is step 0;
  // nothing is staged until the first restage(). A one-step problem is a sequence of one step.
  // Throws as the constructor does.
  static std::unique_ptr<MlaDecodeStaging> for_sequence(const MlaDecodeProblem& seq, StagingMemory memory,
                                                        std::uint64_t workspace_bytes = 0);
  // Stages the next step into the same buffers (a staging from for_sequence only; std::logic_error
  // otherwise): q, the block table (re-laid into the fixed row stride, -1 past each request's
  // blocks), kv_lens, q_lens, qo_indptr and kv_indptr copied in; of the pool only the rows of
  // `written_slots` (pool slots, MlaSequenceInputs::written_slots), every other slot keeping what
  // earlier steps left there -- the engine's KV writer appends; O, LSE and the workspace poisoned
  // again. problem() and abi_problem() become `step`, so collect() judges it. std::invalid_argument
  // when `step` is not a step of the sequence (fields other than kv_lens differ, or a length past
  // the request's final one), when `in` does not match it, or a written slot lies outside the
  // pool's blocks [first_block, num_blocks); InvalidProblem when `step` fails validate().
  void restage(const MlaDecodeProblem& step, const MlaDecodeInputs& in, std::span<const std::int64_t> written_slots);

  const MlaDecodeProblem& problem() const noexcept { return abi_problem_->problem(); }
  StagingMemory memory() const noexcept { return buffers_.memory(); }

  // The C structs a plugin's run() takes; valid as long as this staging. Strides are in elements.
  const mlacheck_mla_problem& abi_problem() const noexcept { return abi_problem_->get(); }
  const mlacheck_mla_tensors& abi_tensors() const noexcept { return tensors_; }

  // Every staged buffer; a backend adds its intermediates here so collect() checks their guards.
  GuardedBufferSet& buffers() noexcept { return buffers_; }
  GuardedBuffer& q() noexcept { return *q_; }
  GuardedBuffer& kv_cache() noexcept { return *kv_cache_; }
  GuardedBuffer& block_table() noexcept { return *block_table_; }
  GuardedBuffer& kv_lens() noexcept { return *kv_lens_; }
  GuardedBuffer& q_lens() noexcept { return *q_lens_; }
  GuardedBuffer& qo_indptr() noexcept { return *qo_indptr_; }
  GuardedBuffer& kv_indptr() noexcept { return *kv_indptr_; }
  GuardedBuffer& o() noexcept { return *o_; }
  GuardedBuffer& lse() noexcept { return *lse_; }
  GuardedBuffer* workspace() noexcept { return workspace_; }  // nullptr when 0 bytes were asked for

  // After the backend's work has finished (device flavour: its stream synchronised): the broken
  // guards of every buffer in buffers(), O decoded from o_dtype and LSE from f32 with their
  // unwritten flags, LSE converted to natural log when the backend wrote it in base 2. diag's path,
  // splits and time are the caller's to fill.
  MlaDecodeRun collect(LseBase lse_base = LseBase::natural) const;

 private:
  struct SequenceTag {};
  MlaDecodeStaging(SequenceTag, const MlaDecodeProblem& seq, StagingMemory memory, std::uint64_t workspace_bytes);
  // tensors_ from the buffers and the current problem: the block table's rows `table_stride_` apart.
  void describe_tensors(std::uint64_t workspace_bytes);
  void upload_written_rows(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                           std::span<const std::int64_t> written_slots);

  std::unique_ptr<AbiMlaProblem> abi_problem_;  // replaced by restage(): the problem collect() judges
  std::optional<MlaDecodeProblem> sequence_;    // set by for_sequence, with_defaults applied
  int table_stride_ = 0;                        // the block table's row stride, in entries
  GuardedBufferSet buffers_;
  GuardedBuffer* q_ = nullptr;
  GuardedBuffer* kv_cache_ = nullptr;
  GuardedBuffer* block_table_ = nullptr;
  GuardedBuffer* kv_lens_ = nullptr;
  GuardedBuffer* q_lens_ = nullptr;
  GuardedBuffer* qo_indptr_ = nullptr;
  GuardedBuffer* kv_indptr_ = nullptr;
  GuardedBuffer* o_ = nullptr;
  GuardedBuffer* lse_ = nullptr;
  GuardedBuffer* workspace_ = nullptr;
  mlacheck_mla_tensors tensors_{};
};

}  // namespace mlacheck
