// The persistent attention step: plan on the host, upload the six scheduling buffers, then the
// persistent kernel and the reduce.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "device/hip_backend/decode_steps.hpp"
#include "device/hip_backend/decode_variant.hpp"
#include "device/hip_backend/persistent_plan.hpp"
#include "device/hip_backend/sequence_plans.hpp"
#include "device/persistent/persistent_decode.hpp"
#include "device/planner/plan_inputs.hpp"

namespace mlacheck {

namespace {

int block_slots(const MlaDecodeProblem& p, const DeviceInfo& info) {
  return kernels::persistent_block_slots(kernels::persistent_shape(p), max_q_len(p), info.compute_units);
}

// The planner takes its inputs as computed here rather than deriving them, so that a historic
// fault can change one field before planning (S2: the head count, S3: qo_indptr, R8: kv_indptr).
// The sizing and the build are plan_persistent_decode's (persistent_plan.hpp), where R3 branches.
PersistentPlan make_plan(const MlaDecodeProblem& p, const DeviceInfo& info, const FaultSet& faults) {
  PlannerInputs in = planner_inputs(p);
  in.qo_indptr = decode_qo_indptr(p, faults);
  // Fault kernel-ignores-page-size (UPSTREAM R8): the plan covers the paged kv_indptr the engine
  // hands the kernel, pages where the kernel reads tokens.
  if (kernel_reads_pages_as_tokens(p, faults)) in.kv_indptr = paged_kv_indptr(p);
  // Fault metadata-unpadded-heads (UPSTREAM S2): sized and planned for the rank's head count while
  // q, the kernel and its partial rows carry the padded one.
  if (faults.has(Fault::metadata_unpadded_heads)) in.padded_heads = heads(p);
  return plan_persistent_decode(in, block_slots(p, info), faults);
}

// Device copies of the six buffers (intermediates of the run), handed on as one set.
MetadataBuffers<const std::int32_t*> upload(const HostMetadata& m, DecodeIntermediates& scratch) {
  const auto up = [&](std::string_view name, const std::vector<std::int32_t>& host) -> const std::int32_t* {
    return scratch.input(name, std::span<const std::int32_t>(host));
  };
  return {up(kMetadataBufferNames[0], m.work_meta_data),   up(kMetadataBufferNames[1], m.work_indptr),
          up(kMetadataBufferNames[2], m.work_info_set),    up(kMetadataBufferNames[3], m.reduce_indptr),
          up(kMetadataBufferNames[4], m.reduce_final_map), up(kMetadataBufferNames[5], m.reduce_partial_map)};
}

}  // namespace

PreparedDecode prepare_persistent_decode(const MlaDecodeProblem& p, const DeviceInfo& info, const DecodeIo& io,
                                         DecodeIntermediates& scratch, const FaultSet& faults, SequencePlans* plans) {
  // A sequence's step takes the plan its session hands out (rebuilt for the step's lengths, or
  // under R5 the first step's); the upload below then copies it into the buffers kept across steps.
  const PersistentPlan plan =
      plans != nullptr ? plans->next([&] { return make_plan(p, info, faults); }) : make_plan(p, info, faults);
  // The partial buffers hold plan.partial_rows (persistent_plan.hpp says why) of the plan's heads.
  MetadataInfo used = plan.built;
  used.partial_rows = plan.partial_rows;
  const kernels::PersistentWorkspace ws = kernels::persistent_workspace(used, p.kv_lora_rank);
  kernels::PersistentArgs args;
  args.shape = kernels::persistent_shape(p);
  args.plan = plan.built;
  args.metadata = upload(plan.metadata, scratch);
  // Fault persistent-buffers-partial (UPSTREAM S1): one of the six buffers is not passed on; the
  // launcher's all-or-none check must refuse the launch.
  if (faults.has(Fault::persistent_buffers_partial)) args.metadata.reduce_partial_map = nullptr;

  args.q = io.q;
  args.kv_cache = io.kv_cache;
  args.kv_indices = io.kv_indices;
  args.qo_indptr = io.qo_indptr;
  args.partial_o = static_cast<float*>(scratch.output("persistent_partial_o", DType::f32, ws.partial_o_floats));
  args.partial_lse = static_cast<float*>(scratch.output("persistent_partial_lse", DType::f32, ws.partial_lse_floats));
  args.o = io.o;
  args.lse = io.lse;
  args.faults = faults;
  return {[args, stream = io.stream] { kernels::launch_mla_decode_persistent(args, stream); }, plan.header.work_items};
}

std::size_t persistent_workspace_bytes(const MlaDecodeProblem& p, const DeviceInfo& info) {
  const MetadataInfo plan = metadata_info(planner_inputs(p), block_slots(p, info));
  const kernels::PersistentWorkspace ws = kernels::persistent_workspace(plan, p.kv_lora_rank);
  std::size_t ints = 0;
  for_each_buffer(plan.elements, [&](std::string_view, std::size_t n) { ints += n; });
  return (ints + ws.partial_o_floats + ws.partial_lse_floats) * sizeof(float);
}

}  // namespace mlacheck
