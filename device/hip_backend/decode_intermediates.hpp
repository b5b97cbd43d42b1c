#pragma once
// Where the hip pipeline gets the buffers of its own (padded q, O and LSE; kv_indptr and
// kv_indices; the path's partials and plan), as opposed to the staged problem tensors it reads and
// writes. Two sources:
//   GuardedIntermediates   each intermediate a guarded, poisoned buffer of the run's
//                          GuardedBufferSet (the built-in backend: the staging's set, so one canary
//                          check covers inputs, outputs and every intermediate -- S2's partial rows
//                          overrunning their buffer break a canary);
//   WorkspaceIntermediates carved out of one workspace the caller allocated (the hip plugin: the
//                          harness's guarded, poisoned workspace), uploads enqueued on the stream;
//                          with no workspace it only measures what a run would carve.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "device/platform/stream_handle.hpp"
#include "device/staging/guarded_buffer_set.hpp"

namespace mlacheck {

class DecodeIntermediates {
 public:
  virtual ~DecodeIntermediates() = default;
  // `count` elements of `t` a kernel writes before any kernel reads them.
  virtual void* output(std::string_view name, DType t, std::size_t count) = 0;
  // `count` int32 indices a kernel writes.
  virtual std::int32_t* indices(std::string_view name, std::size_t count) = 0;
  // A device copy of `host`, ready before the kernels enqueued after this call run.
  virtual const std::int32_t* input(std::string_view name, std::span<const std::int32_t> host) = 0;
};

class GuardedIntermediates final : public DecodeIntermediates {
 public:
  explicit GuardedIntermediates(GuardedBufferSet& set) : set_(set) {}
  void* output(std::string_view name, DType t, std::size_t count) override;
  std::int32_t* indices(std::string_view name, std::size_t count) override;
  const std::int32_t* input(std::string_view name, std::span<const std::int32_t> host) override;

 private:
  GuardedBufferSet& set_;
};

class WorkspaceIntermediates final : public DecodeIntermediates {
 public:
  // Every intermediate starts at a multiple of kAlignment from `workspace` (device memory of at
  // least `bytes`); a request past the end throws std::length_error naming the intermediate.
  static constexpr std::size_t kAlignment = 256;
  WorkspaceIntermediates(void* workspace, std::uint64_t bytes, StreamHandle stream);
  // Hands out null pointers and uploads nothing: a run prepared against it says in used_bytes()
  // how much workspace the same run needs.
  static WorkspaceIntermediates measuring();

  void* output(std::string_view name, DType t, std::size_t count) override;
  std::int32_t* indices(std::string_view name, std::size_t count) override;
  const std::int32_t* input(std::string_view name, std::span<const std::int32_t> host) override;
  std::uint64_t used_bytes() const noexcept { return used_; }

 private:
  struct Measuring {};
  explicit WorkspaceIntermediates(Measuring) : measuring_(true) {}
  std::byte* carve(std::string_view name, std::size_t bytes);

  bool measuring_ = false;
  std::byte* base_ = nullptr;
  std::uint64_t capacity_ = 0;
  std::uint64_t used_ = 0;
  StreamHandle stream_ = nullptr;
  // The host side of uploads enqueued on the stream, kept until this object goes: the copies may
  // still be in flight when the run returns.
  std::deque<std::vector<std::int32_t>> host_copies_;
};

}  // namespace mlacheck
