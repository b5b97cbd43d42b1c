#include "device/backend/mla_decode_pipeline.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "device/backend/decode_path.hpp"
#include "device/backend/decode_steps.hpp"
#include "device/backend/gpu_timer.hpp"
#include "device/backend/guarded_buffers.hpp"
#include "device/backend/tensor_codec.hpp"
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

void check_input_sizes(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const Sizes& s) {
  const auto expect = [&](const char* what, std::size_t got, std::size_t want) {
    if (got != want) {
      throw std::invalid_argument("hip backend: input " + std::string(what) + " of " + p.name + " has " +
                                  std::to_string(got) + " elements, the problem needs " + std::to_string(want));
    }
  };
  expect("q", in.q.size(), s.tokens * s.heads * s.lk);
  expect("kv_cache", in.kv_cache.size(), static_cast<std::size_t>(p.num_blocks) * p.block_size * s.lk);
  expect("block_table", in.block_table.size(), s.batch * static_cast<std::size_t>(in.block_table_stride));
}

}  // namespace

std::optional<std::string> mla_decode_memory_shortfall(const MlaDecodeProblem& p, const DeviceInfo& info) {
  const Sizes s = sizes_of(p);
  const bool persistent = choose_decode_path(p, info.compute_units).path == DecodePath::persistent;
  const std::size_t qb = storage_bytes(p.q_dtype), ob = storage_bytes(p.o_dtype);
  const std::size_t bytes = s.tokens * (s.heads + s.padded) * s.lk * qb +
                            static_cast<std::size_t>(p.num_blocks) * p.block_size * s.lk * storage_bytes(p.kv_dtype) +
                            (s.kv_tokens + 4 * s.batch) * 4 +
                            (persistent ? persistent_workspace_bytes(p, info) : split_kv_workspace_bytes(p, info)) +
                            s.tokens * (s.heads + s.padded) * (s.lv * ob + 4);
  // Leave room for the runtime, guards and other processes on the device.
  if (bytes > info.global_memory_bytes / 10 * 8) {
    return "needs about " + std::to_string(bytes >> 20) + " MiB of device memory, more than 80% of the " +
           std::to_string(info.global_memory_bytes >> 20) + " MiB the device has";
  }
  return std::nullopt;
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
  DecodePathChoice path;
  bool padding = false;
  int block_table_stride = 0;
  GuardedBuffers bufs;
  DeviceBuffer* q = nullptr;
  DeviceBuffer* table = nullptr;
  DeviceBuffer* lens = nullptr;
  DeviceBuffer* kv_ptr = nullptr;
  DeviceBuffer* kv_idx = nullptr;
  DeviceBuffer* q_padded = nullptr;
  DeviceBuffer* o = nullptr;
  DeviceBuffer* lse = nullptr;
  DeviceBuffer* o_padded = nullptr;
  DeviceBuffer* lse_padded = nullptr;
  PreparedDecode decode;
};

MlaDecodeSession::MlaDecodeSession(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                                   const FaultSet& faults)
    : state_(std::make_unique<State>()) {
  State& st = *state_;
  const Sizes s = sizes_of(p);
  check_input_sizes(p, in, s);
  st.p = p;
  st.faults = faults;
  st.path = choose_decode_path(p, info.compute_units);
  st.padding = padded_heads(p) != heads(p);
  st.block_table_stride = in.block_table_stride;

  const auto q_bytes = encode_tensor(p.q_dtype, in.q);
  const auto kv_bytes = encode_tensor(p.kv_dtype, in.kv_cache);
  const std::vector<std::int32_t> kv_lens(p.kv_lens.begin(), p.kv_lens.end());
  const std::vector<std::int32_t> qo32 = decode_qo_indptr(p, faults);

  GuardedBuffers& bufs = st.bufs;
  st.q = &bufs.input("q", std::span<const std::byte>(q_bytes));
  DeviceBuffer& kv = bufs.input("kv_cache", std::span<const std::byte>(kv_bytes));
  st.table = &bufs.input("block_table", std::span<const std::int32_t>(in.block_table));
  st.lens = &bufs.input("kv_lens", std::span<const std::int32_t>(kv_lens));
  DeviceBuffer& qo_ptr = bufs.input("qo_indptr", std::span<const std::int32_t>(qo32));
  st.kv_ptr = &bufs.indices("kv_indptr", s.batch + 1);
  st.kv_idx = &bufs.indices("kv_indices", s.kv_tokens);
  st.q_padded = st.padding ? &bufs.output("q_padded", p.q_dtype, s.tokens * s.padded * s.lk) : st.q;
  st.o = &bufs.output("o", p.o_dtype, s.tokens * s.heads * s.lv);
  st.lse = &bufs.output("lse", DType::f32, s.tokens * s.heads);
  st.o_padded = st.padding ? &bufs.output("o_padded", p.o_dtype, s.tokens * s.padded * s.lv) : st.o;
  st.lse_padded = st.padding ? &bufs.output("lse_padded", DType::f32, s.tokens * s.padded) : st.lse;

  DecodeIo io;
  io.q = st.q_padded->data();
  io.kv_cache = kv.data();
  io.kv_indices = st.kv_idx->as<std::int32_t>();
  io.kv_indptr = st.kv_ptr->as<std::int32_t>();
  io.qo_indptr = qo_ptr.as<std::int32_t>();
  io.o = st.o_padded->data();
  io.lse = st.lse_padded->as<float>();
  st.decode = st.path.path == DecodePath::persistent ? prepare_persistent_decode(p, info, io, bufs, faults)
                                                     : prepare_split_kv_decode(p, info, io, bufs, faults);
}

MlaDecodeSession::~MlaDecodeSession() = default;

const DecodePathChoice& MlaDecodeSession::path() const { return state_->path; }

void MlaDecodeSession::enqueue_prologue() {
  State& st = *state_;
  if (st.padding) layout::launch_pad_q_heads(st.p, st.q->data(), st.q_padded->data(), nullptr);
  layout::launch_expand_page_indices(
      st.p,
      layout::PageIndexBuffers{st.table->as<std::int32_t>(), st.block_table_stride, st.lens->as<std::int32_t>(),
                               st.kv_ptr->as<std::int32_t>(), st.kv_idx->as<std::int32_t>()},
      nullptr, st.faults);
}

void MlaDecodeSession::enqueue_decode() { state_->decode.enqueue(); }

void MlaDecodeSession::enqueue_epilogue() {
  State& st = *state_;
  if (!st.padding) return;
  layout::launch_unpad_o_heads(st.p, st.o_padded->data(), st.o->data(), nullptr);
  layout::launch_unpad_lse_heads(st.p, st.lse_padded->as<float>(), st.lse->as<float>(), nullptr);
}

MlaDecodeRun MlaDecodeSession::collect(double device_ms) {
  State& st = *state_;
  MlaDecodeRun run;
  run.diag.device_ms = device_ms;
  run.diag.path = std::string(to_string(st.path.path));
  run.diag.path_reason = st.path.reason;
  run.diag.num_splits = st.decode.work_count;
  run.diag.broken_canaries = st.bufs.broken_canaries();
  DecodedTensor o_host = decode_tensor(st.p.o_dtype, st.o->download<std::byte>());
  DecodedTensor lse_host = decode_tensor(DType::f32, st.lse->download<std::byte>());
  run.out.o = std::move(o_host.values);
  run.o_unwritten = std::move(o_host.unwritten);
  run.out.lse = std::move(lse_host.values);
  run.lse_unwritten = std::move(lse_host.unwritten);
  return run;
}

MlaDecodeRun run_mla_decode_pipeline(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                                     const FaultSet& faults) {
  MlaDecodeSession session(p, in, info, faults);
  GpuTimer timer;
  timer.start();
  session.enqueue_prologue();
  session.enqueue_decode();
  session.enqueue_epilogue();
  return session.collect(timer.stop_ms());
}

}  // namespace mlacheck
