#include "device/hip_backend/mla_decode_pipeline.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "device/hip_backend/decode_path.hpp"
#include "device/hip_backend/decode_steps.hpp"
#include "device/hip_backend/decode_variant.hpp"
#include "device/hip_backend/gpu_timer.hpp"
#include "device/kernels/split_kv_plan.hpp"
#include "device/layout/launchers.hpp"

namespace mlacheck {

namespace {

struct Sizes {
  std::size_t tokens, heads, padded, lk, lv, batch, kv_tokens;
};

Sizes sizes_of(const MlaDecodeProblem& p) {
  return {static_cast<std::size_t>(total_q_tokens(p)), static_cast<std::size_t>(heads(p)),
          static_cast<std::size_t>(padded_heads(p)),   static_cast<std::size_t>(lk(p)),
          static_cast<std::size_t>(p.kv_lora_rank),    static_cast<std::size_t>(batch(p)),
          static_cast<std::size_t>(kv_indptr(p).back())};
}

}  // namespace

std::size_t mla_decode_device_bytes(const MlaDecodeProblem& p, const DeviceInfo& info) {
  const Sizes s = sizes_of(p);
  const bool persistent = choose_decode_path(p, info.compute_units).path == DecodePath::persistent;
  const std::size_t qb = storage_bytes(p.q_dtype), ob = storage_bytes(p.o_dtype);
  const std::size_t bytes = s.tokens * (s.heads + s.padded) * s.lk * qb +
                            static_cast<std::size_t>(p.num_blocks) * p.block_size * s.lk * storage_bytes(p.kv_dtype) +
                            (s.kv_tokens + 4 * s.batch) * 4 +
                            (persistent ? persistent_workspace_bytes(p, info) : split_kv_workspace_bytes(p, info)) +
                            s.tokens * (s.heads + s.padded) * (s.lv * ob + 4);
  return bytes;
}

std::optional<std::string> mla_decode_memory_shortfall(const MlaDecodeProblem& p, const DeviceInfo& info) {
  const std::size_t bytes = mla_decode_device_bytes(p, info);
  // Leave room for the runtime, guards and other processes on the device.
  if (bytes > info.global_memory_bytes / 10 * 8) {
    return "needs about " + std::to_string(bytes >> 20) + " MiB of device memory, more than 80% of the " +
           std::to_string(info.global_memory_bytes >> 20) + " MiB the device has";
  }
  return std::nullopt;
}

std::optional<std::string> hip_mla_decode_shape_unsupported(const MlaDecodeProblem& p) {
  // Both paths attend with the same row-group kernels, so they refuse the same shapes.
  return kernels::split_kv_unsupported(kernels::split_kv_shape(p, 1));
}

std::optional<std::string> hip_mla_decode_unsupported(const MlaDecodeProblem& p, const DeviceInfo& info) {
  if (auto why = hip_mla_decode_shape_unsupported(p)) return why;
  return mla_decode_memory_shortfall(p, info);
}

std::vector<std::int32_t> decode_qo_indptr(const MlaDecodeProblem& p, const FaultSet& faults) {
  std::vector<std::int32_t> qo(static_cast<std::size_t>(batch(p)) + 1);
  if (faults.has(Fault::qo_indptr_assumes_single_token)) {
    std::iota(qo.begin(), qo.end(), 0);
  } else {
    const std::vector<int> exact = qo_indptr(p);
    std::copy(exact.begin(), exact.end(), qo.begin());
  }
  return qo;
}

struct MlaDecodeSession::State {
  MlaDecodeProblem p;
  FaultSet faults;
  StreamHandle stream = nullptr;
  DecodePathChoice path;
  bool padding = false;
  StagedMlaTensors staged;
  std::int32_t* kv_indptr = nullptr;   // the prologue's scan of kv_lens
  std::int32_t* kv_indices = nullptr;  // the prologue's expansion of the block table
  void* q_padded = nullptr;
  void* o_padded = nullptr;
  float* lse_padded = nullptr;
  PreparedDecode decode;
};

MlaDecodeSession::MlaDecodeSession(const MlaDecodeProblem& p, const StagedMlaTensors& tensors,
                                   DecodeIntermediates& scratch, const DeviceInfo& info, StreamHandle stream,
                                   const FaultSet& faults, SequencePlans* plans)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  const Sizes s = sizes_of(p);
  st.p = p;
  st.faults = faults;
  st.stream = stream;
  st.path = choose_decode_path(p, info.compute_units);
  st.padding = padded_heads(p) != heads(p);
  st.staged = tensors;

  st.kv_indptr = scratch.indices("expanded_kv_indptr", s.batch + 1);
  st.kv_indices = scratch.indices("kv_indices", s.kv_tokens);
  st.q_padded = st.padding ? scratch.output("q_padded", p.q_dtype, s.tokens * s.padded * s.lk) : nullptr;
  st.o_padded = st.padding ? scratch.output("o_padded", p.o_dtype, s.tokens * s.padded * s.lv) : tensors.o;
  st.lse_padded =
      st.padding ? static_cast<float*>(scratch.output("lse_padded", DType::f32, s.tokens * s.padded)) : tensors.lse;

  DecodeIo io;
  io.q = st.padding ? st.q_padded : tensors.q;
  io.kv_cache = tensors.kv_cache;
  io.kv_indices = st.kv_indices;
  io.kv_indptr = st.kv_indptr;
  // Fault qo-indptr-assumes-single-token (UPSTREAM S3): the pipeline builds its own qo_indptr as
  // arange(batch + 1) instead of reading the engine's.
  io.qo_indptr = faults.has(Fault::qo_indptr_assumes_single_token)
                     ? scratch.input("qo_indptr_arange", decode_qo_indptr(p, faults))
                     : tensors.qo_indptr;
  io.o = st.o_padded;
  io.lse = st.lse_padded;
  io.stream = stream;
  // Fault tokens-folded-into-heads (UPSTREAM R9): the step is dispatched for each request as one
  // token of q_len x padded heads, on the same q, O and LSE, with a qo_indptr of one token each.
  const std::optional<MlaDecodeProblem> folded = folded_decode_problem(p, faults);
  if (folded) io.qo_indptr = scratch.input("qo_indptr_folded", decode_qo_indptr(*folded, {}));
  const MlaDecodeProblem& step = folded ? *folded : p;
  st.decode = st.path.path == DecodePath::persistent ? prepare_persistent_decode(step, info, io, scratch, faults, plans)
                                                     : prepare_split_kv_decode(step, info, io, scratch, faults);
}

MlaDecodeSession::~MlaDecodeSession() = default;

const DecodePathChoice& MlaDecodeSession::path() const { return state_->path; }

int MlaDecodeSession::work_count() const { return state_->decode.work_count; }

void MlaDecodeSession::enqueue_prologue() {
  State& st = *state_;
  if (st.padding) layout::launch_pad_q_heads(st.p, st.staged.q, st.q_padded, st.stream);
  layout::launch_expand_page_indices(
      st.p,
      layout::PageIndexBuffers{st.staged.block_table, st.staged.block_table_stride, st.staged.kv_lens, st.kv_indptr,
                               st.kv_indices},
      st.stream, st.faults,
      kernel_reads_pages_as_tokens(st.p, st.faults) ? layout::KvIndexForm::pages : layout::KvIndexForm::tokens);
}

void MlaDecodeSession::enqueue_decode() { state_->decode.enqueue(); }

void MlaDecodeSession::enqueue_epilogue() {
  State& st = *state_;
  if (!st.padding) return;
  layout::launch_unpad_o_heads(st.p, st.o_padded, st.staged.o, st.stream);
  layout::launch_unpad_lse_heads(st.p, st.lse_padded, st.staged.lse, st.stream);
}

HipDecodeResult run_hip_decode_on(const MlaDecodeProblem& p, const StagedMlaTensors& tensors,
                                  DecodeIntermediates& scratch, const DeviceInfo& info, StreamHandle stream,
                                  const FaultSet& faults, DeviceTiming timing, SequencePlans* plans) {
  MlaDecodeSession session(p, tensors, scratch, info, stream, faults, plans);
  std::optional<GpuTimer> timer;
  if (timing == DeviceTiming::events) {
    timer.emplace(stream);
    timer->start();
  }
  session.enqueue_prologue();
  session.enqueue_decode();
  session.enqueue_epilogue();
  HipDecodeResult result;
  result.path = session.path();
  result.work_count = session.work_count();
  if (timer) result.device_ms = timer->stop_ms();
  return result;
}

std::uint64_t hip_decode_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info) {
  // A session prepared against a measuring allocator carves exactly what the same session carves
  // from a real workspace: one code path decides both, so they cannot drift apart.
  WorkspaceIntermediates measure = WorkspaceIntermediates::measuring();
  const MlaDecodeSession session(p, StagedMlaTensors{}, measure, info, nullptr, {});
  return measure.used_bytes();
}

}  // namespace mlacheck
