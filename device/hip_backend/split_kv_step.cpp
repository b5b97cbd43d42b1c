// The split-KV attention step: stage 1 partials over (request, row group, split), stage 2 merge.
#include "device/hip_backend/decode_steps.hpp"
#include "device/kernels/split_kv_decode.hpp"

namespace mlacheck {

namespace {

int split_count(const MlaDecodeProblem& p, const DeviceInfo& info) {
  return kernels::split_kv_num_splits(p, info.compute_units, kernels::split_kv_row_tile_policy(p.q_dtype, p.kv_dtype));
}

}  // namespace

PreparedDecode prepare_split_kv_decode(const MlaDecodeProblem& p, const DeviceInfo& info, const DecodeIo& io,
                                       DecodeIntermediates& scratch, const FaultSet& faults) {
  const int num_splits = split_count(p, info);
  kernels::SplitKvArgs args;
  args.shape = kernels::split_kv_shape(p, num_splits);
  const kernels::SplitKvWorkspace ws = kernels::split_kv_workspace(args.shape);
  args.q = io.q;
  args.kv_cache = io.kv_cache;
  args.kv_indices = io.kv_indices;
  args.kv_indptr = io.kv_indptr;
  args.qo_indptr = io.qo_indptr;
  args.partial_o = static_cast<float*>(scratch.output("partial_o", DType::f32, ws.partial_o_floats));
  args.partial_lse = static_cast<float*>(scratch.output("partial_lse", DType::f32, ws.partial_lse_floats));
  args.o = io.o;
  args.lse = io.lse;
  args.faults = faults;
  // Fault padded-fp8-single-request (UPSTREAM R6): heads that need padding with an fp8 cache are
  // routed to a regime written for a batch of one.
  args.kv_of_first_request =
      faults.has(Fault::padded_fp8_single_request) && head_pad_mode(p) != HeadPadMode::none && is_fp8(p.kv_dtype);
  return {[args, stream = io.stream] { kernels::launch_mla_decode_split_kv(args, stream); }, num_splits};
}

std::size_t split_kv_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info) {
  const kernels::SplitKvWorkspace ws =
      kernels::split_kv_workspace(kernels::split_kv_shape(p, split_count(p, info)));
  return (ws.partial_o_floats + ws.partial_lse_floats) * sizeof(float);
}

}  // namespace mlacheck
