// The kv_gather launcher: picks the element types (storage bits for a copy, fp8 -> bf16/f16 for a
// dequantising gather) and, per tensor, the kernel and run width that plan_kv_gather() chose.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "device/layout/kv_gather_kernels.hpp"
#include "device/layout/launchers.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::layout {

namespace {

template <class In, class Out, class Convert>
void launch_tensor(const KvGatherProblem& p, const GatherArgs& args, const TensorPlan& plan, bool is_v,
                   const void* cache, void* out, Convert convert, hipStream_t stream) {
  const auto* src = static_cast<const In*>(cache);
  auto* dst = static_cast<Out*>(out);
  const std::int64_t max_tokens = *std::max_element(p.kv_lens.begin(), p.kv_lens.end());
  if (plan.kernel == GatherKernel::shuffle_v_tiles) {
    constexpr int kX = 16 / static_cast<int>(sizeof(In));
    const std::int64_t units = (max_tokens + kX - 1) / kX * p.num_kv_heads * (p.head_size / kX);
    gather_shuffle_v_tiles_kernel<In, Out, Convert>
        <<<request_grid(batch(p), units), kLayoutThreads, 0, stream>>>(args, src, dst, convert);
    GPU_CHECK_LAUNCH("gather_shuffle_v_tiles_kernel", stream);
    return;
  }
  const auto launch_runs = [&](auto run_elems) {
    constexpr int kN = decltype(run_elems)::value;
    const std::int64_t units = max_tokens * p.num_kv_heads * (p.head_size / kN);
    gather_runs_kernel<In, Out, kN, Convert>
        <<<request_grid(batch(p), units), kLayoutThreads, 0, stream>>>(args, is_v, src, dst, convert);
    GPU_CHECK_LAUNCH("gather_runs_kernel", stream);
  };
  switch (plan.run_elems) {
    case 1:
      return launch_runs(std::integral_constant<int, 1>{});
    case 2:
      return launch_runs(std::integral_constant<int, 2>{});
    case 4:
      return launch_runs(std::integral_constant<int, 4>{});
    case 8:
      return launch_runs(std::integral_constant<int, 8>{});
    case 16:
      // 16 channels fit one 16-byte access only for fp8; the plan never asks for more.
      if constexpr (sizeof(In) == 1) return launch_runs(std::integral_constant<int, 16>{});
      break;
  }
  throw std::logic_error("kv_gather: no run kernel for runs of " + std::to_string(plan.run_elems) + " elements");
}

template <class In, class Out>
void gather_tensors(const KvGatherProblem& p, const KvGatherBuffers& buffers, const KvGatherPlan& plan,
                    const FaultSet& faults, hipStream_t stream) {
  const GatherArgs args{cache_geometry(p, faults), buffers.block_table, buffers.block_table_stride, buffers.cu_seq_lens,
                        batch(p),          total_tokens(p)};
  for (const bool is_v : {false, true}) {
    const TensorPlan& tensor = is_v ? plan.v : plan.k;
    void* out = is_v ? buffers.v_out : buffers.k_out;
    if constexpr (std::is_same_v<In, Out>) {
      launch_tensor<In, Out>(p, args, tensor, is_v, buffers.cache, out, CopyBits{}, stream);
    } else {
      const Dequantise<Out> dequantise{is_v ? p.v_scale : p.k_scale};
      launch_tensor<In, Out>(p, args, tensor, is_v, buffers.cache, out, dequantise, stream);
    }
  }
}

template <class In>
void gather_dequantised(const KvGatherProblem& p, const KvGatherBuffers& buffers, const KvGatherPlan& plan,
                        const FaultSet& faults, hipStream_t stream) {
  if (p.out_dtype == DType::bf16) return gather_tensors<In, bf16_t>(p, buffers, plan, faults, stream);
  gather_tensors<In, f16_t>(p, buffers, plan, faults, stream);
}

}  // namespace

void launch_kv_gather(const KvGatherProblem& problem, const KvGatherBuffers& buffers, StreamHandle stream_handle,
                      const FaultSet& faults) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  const KvGatherPlan plan = plan_kv_gather(problem, buffers);  // checks the arguments first
  const KvGatherProblem p = with_defaults(problem);
  if (dequantises(p)) {
    if (p.cache_dtype == DType::fp8_e4m3fn) return gather_dequantised<fp8_e4m3fn_t>(p, buffers, plan, faults, stream);
    return gather_dequantised<fp8_e4m3fnuz_t>(p, buffers, plan, faults, stream);
  }
  // A copy moves storage bits: one instantiation per element width, whatever the dtype.
  if (storage_bytes(p.cache_dtype) == 2) {
    return gather_tensors<std::uint16_t, std::uint16_t>(p, buffers, plan, faults, stream);
  }
  gather_tensors<std::uint8_t, std::uint8_t>(p, buffers, plan, faults, stream);
}

}  // namespace mlacheck::layout
