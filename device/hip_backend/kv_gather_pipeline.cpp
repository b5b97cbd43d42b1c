#include "device/hip_backend/kv_gather_pipeline.hpp"

#include <stdexcept>

#include "device/hip_backend/gpu_timer.hpp"
#include "device/layout/launchers.hpp"
#include "device/staging/guarded_buffer_set.hpp"
#include "device/staging/tensor_codec.hpp"

namespace mlacheck {

std::optional<std::string> kv_gather_memory_shortfall(const KvGatherProblem& p, const DeviceInfo& info) {
  const std::size_t out = static_cast<std::size_t>(total_tokens(p)) * p.num_kv_heads * p.head_size;
  const std::size_t bytes = static_cast<std::size_t>(cache_elements(p)) * storage_bytes(p.cache_dtype) +
                            2 * out * storage_bytes(p.out_dtype);
  if (bytes > info.global_memory_bytes / 10 * 8) {
    return "needs about " + std::to_string(bytes >> 20) + " MiB of device memory, more than 80% of the " +
           std::to_string(info.global_memory_bytes >> 20) + " MiB the device has";
  }
  return std::nullopt;
}

KvGatherRun run_kv_gather_pipeline(const KvGatherProblem& p, const KvGatherInputs& in, const FaultSet& faults) {
  if (in.cache.size() != static_cast<std::size_t>(cache_elements(p))) {
    throw std::invalid_argument("hip backend: input cache of " + p.name + " has " + std::to_string(in.cache.size()) +
                                " elements, the problem needs " + std::to_string(cache_elements(p)));
  }
  const std::size_t out_count = static_cast<std::size_t>(total_tokens(p)) * p.num_kv_heads * p.head_size;
  GuardedBufferSet bufs(StagingMemory::device);
  const auto cache_bytes = encode_tensor(p.cache_dtype, in.cache);
  const std::vector<std::int32_t> kv_lens(p.kv_lens.begin(), p.kv_lens.end());
  GuardedBuffer& cache = bufs.input("cache", std::span<const std::byte>(cache_bytes));
  GuardedBuffer& table = bufs.input("block_table", std::span<const std::int32_t>(in.block_table));
  GuardedBuffer& lens = bufs.input("kv_lens", std::span<const std::int32_t>(kv_lens));
  GuardedBuffer& cu = bufs.indices("cu_seq_lens", kv_lens.size() + 1);
  GuardedBuffer& k = bufs.output("k_out", p.out_dtype, out_count);
  GuardedBuffer& v = bufs.output("v_out", p.out_dtype, out_count);

  GpuTimer timer;
  timer.start();
  layout::launch_lengths_to_indptr(lens.as<std::int32_t>(), static_cast<int>(kv_lens.size()), cu.as<std::int32_t>(),
                                   nullptr);
  layout::launch_kv_gather(p,
                           layout::KvGatherBuffers{cache.data(), table.as<std::int32_t>(), in.block_table_stride,
                                                   cu.as<std::int32_t>(), k.data(), v.data()},
                           nullptr, faults);
  KvGatherRun run;
  run.diag.device_ms = timer.stop_ms();
  run.diag.path = "gather";
  run.diag.broken_canaries = bufs.broken_canaries();
  DecodedTensor k_host = decode_tensor(p.out_dtype, k.download());
  DecodedTensor v_host = decode_tensor(p.out_dtype, v.download());
  run.out.k = std::move(k_host.values);
  run.k_unwritten = std::move(k_host.unwritten);
  run.out.v = std::move(v_host.values);
  run.v_unwritten = std::move(v_host.unwritten);
  return run;
}

}  // namespace mlacheck
