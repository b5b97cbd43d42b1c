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

MlaDecodeRun run_mla_decode_pipeline(const MlaDecodeProblem& p, const MlaDecodeInputs& in, const DeviceInfo& info,
                                     const FaultSet& faults) {
  const Sizes s = sizes_of(p);
  check_input_sizes(p, in, s);
  const DecodePathChoice path = choose_decode_path(p, info.compute_units);
  const bool padding = padded_heads(p) != heads(p);

  GuardedBuffers bufs;
  const auto q_bytes = encode_tensor(p.q_dtype, in.q);
  const auto kv_bytes = encode_tensor(p.kv_dtype, in.kv_cache);
  const std::vector<std::int32_t> kv_lens(p.kv_lens.begin(), p.kv_lens.end());
  const std::vector<std::int32_t> qo32 = decode_qo_indptr(p, faults);

  DeviceBuffer& q = bufs.input("q", std::span<const std::byte>(q_bytes));
  DeviceBuffer& kv = bufs.input("kv_cache", std::span<const std::byte>(kv_bytes));
  DeviceBuffer& table = bufs.input("block_table", std::span<const std::int32_t>(in.block_table));
  DeviceBuffer& lens = bufs.input("kv_lens", std::span<const std::int32_t>(kv_lens));
  DeviceBuffer& qo_ptr = bufs.input("qo_indptr", std::span<const std::int32_t>(qo32));
  DeviceBuffer& kv_ptr = bufs.indices("kv_indptr", s.batch + 1);
  DeviceBuffer& kv_idx = bufs.indices("kv_indices", s.kv_tokens);
  DeviceBuffer* q_padded = padding ? &bufs.output("q_padded", p.q_dtype, s.tokens * s.padded * s.lk) : &q;
  DeviceBuffer& o = bufs.output("o", p.o_dtype, s.tokens * s.heads * s.lv);
  DeviceBuffer& lse = bufs.output("lse", DType::f32, s.tokens * s.heads);
  DeviceBuffer* o_padded = padding ? &bufs.output("o_padded", p.o_dtype, s.tokens * s.padded * s.lv) : &o;
  DeviceBuffer* lse_padded = padding ? &bufs.output("lse_padded", DType::f32, s.tokens * s.padded) : &lse;

  DecodeIo io;
  io.q = q_padded->data();
  io.kv_cache = kv.data();
  io.kv_indices = kv_idx.as<std::int32_t>();
  io.kv_indptr = kv_ptr.as<std::int32_t>();
  io.qo_indptr = qo_ptr.as<std::int32_t>();
  io.o = o_padded->data();
  io.lse = lse_padded->as<float>();
  const PreparedDecode decode = path.path == DecodePath::persistent
                                    ? prepare_persistent_decode(p, info, io, bufs, faults)
                                    : prepare_split_kv_decode(p, info, io, bufs, faults);

  GpuTimer timer;
  timer.start();
  if (padding) layout::launch_pad_q_heads(p, q.data(), q_padded->data(), nullptr);
  layout::launch_expand_page_indices(
      p, layout::PageIndexBuffers{table.as<std::int32_t>(), in.block_table_stride, lens.as<std::int32_t>(),
                                  kv_ptr.as<std::int32_t>(), kv_idx.as<std::int32_t>()},
      nullptr, faults);
  decode.enqueue();
  if (padding) {
    layout::launch_unpad_o_heads(p, o_padded->data(), o.data(), nullptr);
    layout::launch_unpad_lse_heads(p, lse_padded->as<float>(), lse.as<float>(), nullptr);
  }

  MlaDecodeRun run;
  run.diag.device_ms = timer.stop_ms();
  run.diag.path = std::string(to_string(path.path));
  run.diag.path_reason = path.reason;
  run.diag.num_splits = decode.work_count;
  run.diag.broken_canaries = bufs.broken_canaries();

  DecodedTensor o_host = decode_tensor(p.o_dtype, o.download<std::byte>());
  DecodedTensor lse_host = decode_tensor(DType::f32, lse.download<std::byte>());
  run.out.o = std::move(o_host.values);
  run.o_unwritten = std::move(o_host.unwritten);
  run.out.lse = std::move(lse_host.values);
  run.lse_unwritten = std::move(lse_host.unwritten);
  return run;
}

}  // namespace mlacheck
