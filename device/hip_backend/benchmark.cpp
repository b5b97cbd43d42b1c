#include "device/benchmark.hpp"

#include <algorithm>
#include <stdexcept>

#include "device/hip_backend/gpu_timer.hpp"
#include "device/hip_backend/l2_flush.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/platform/device_info.hpp"
#include "device/staging/mla_decode_staging.hpp"

namespace mlacheck {

DecodeTiming time_mla_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int device_index, int warmup,
                             int runs) {
  if (runs < 1) throw std::invalid_argument("time_mla_decode: runs must be >= 1");
  select_device(device_index);
  const DeviceInfo info = device_info(device_index);
  if (auto why = mla_decode_memory_shortfall(p, info)) throw std::invalid_argument(*why);
  MlaDecodeStaging staging(p, in, StagingMemory::device);
  GuardedIntermediates intermediates(staging.buffers());
  MlaDecodeSession session(staging.problem(), staged_tensors(staging), intermediates, info, nullptr, {});
  session.enqueue_prologue();
  DeviceBuffer scratch("l2_flush", std::max<std::size_t>(2 * info.l2_cache_bytes, std::size_t{1} << 20));
  DecodeTiming t;
  t.path = std::string(to_string(session.path().path));
  for (int i = 0; i < warmup + runs; ++i) {
    flush_l2(scratch);
    GpuTimer timer;
    timer.start();
    session.enqueue_decode();
    const double ms = timer.stop_ms();
    if (i >= warmup) t.us.push_back(1000.0 * ms);
  }
  const std::vector<BrokenCanary> broken = staging.buffers().broken_canaries();  // after every timed run
  if (!broken.empty()) {
    throw std::runtime_error("benchmark of " + p.name + " overwrote the guard of " + broken[0].buffer);
  }
  t.work_count = session.work_count();
  t.median_us = median_of(t.us);
  return t;
}

double copy_bandwidth_gbps(int device_index, std::size_t bytes, int runs) {
  select_device(device_index);
  DeviceBuffer src("copy_src", bytes);
  DeviceBuffer dst("copy_dst", bytes);
  src.poison(std::uint32_t{0x3C3C3C3C});
  std::vector<double> ms;
  for (int i = 0; i < runs + 2; ++i) {
    const double t = timed_copy_ms(dst, src);
    if (i >= 2) ms.push_back(t);  // the first copies warm the runtime up
  }
  return 2.0 * static_cast<double>(bytes) / (median_of(ms) * 1e-3) / 1e9;
}

}  // namespace mlacheck
