#include "persistent_run.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "device/persistent/persistent_decode.hpp"
#include "device/planner/plan_inputs.hpp"
#include "device/platform/device_buffer.hpp"
#include "reference/head_padding.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck::kernels {

namespace {

DeviceBuffer upload_ints(std::string_view name, const std::vector<std::int32_t>& host) {
  return DeviceBuffer::from_host(std::string(name), std::span(host));
}

}  // namespace

PersistentRun run_persistent(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int num_cus, bool portable) {
  const PlannerInputs plan_in = planner_inputs(p);
  const MetadataInfo info = metadata_info(plan_in, num_cus);
  HostMetadata plan = allocate_metadata(info);
  const MetadataHeader header = build_metadata(plan_in.qo_indptr, plan_in.kv_indptr, info, view(plan));
  PlanWalk walk = walk_plan(view(std::as_const(plan)), plan_in.qo_indptr, plan_in.kv_indptr, plan_in.padded_heads);

  const PersistentShape shape = persistent_shape(p);
  const PersistentWorkspace ws = persistent_workspace(info, shape.lv);
  const PageIndices pages = expand_page_indices(p, in);
  const std::vector<float> q_padded = pad_heads<float>(p, in.q, lk(p));
  const std::size_t rows = std::size_t(total_q_tokens(p)) * std::size_t(shape.padded_heads);

  const DeviceBuffer q = upload_encoded("q_padded", p.q_dtype, q_padded);
  const DeviceBuffer kv = upload_encoded("kv_cache", p.kv_dtype, in.kv_cache);
  const DeviceBuffer kv_indices = upload_ints("kv_indices", pages.kv_indices);
  const DeviceBuffer qo_indptr = upload_ints("qo_indptr", plan_in.qo_indptr);
  const DeviceBuffer work_meta_data = upload_ints(kMetadataBufferNames[0], plan.work_meta_data);
  const DeviceBuffer work_indptr = upload_ints(kMetadataBufferNames[1], plan.work_indptr);
  const DeviceBuffer work_info_set = upload_ints(kMetadataBufferNames[2], plan.work_info_set);
  const DeviceBuffer reduce_indptr = upload_ints(kMetadataBufferNames[3], plan.reduce_indptr);
  const DeviceBuffer reduce_final_map = upload_ints(kMetadataBufferNames[4], plan.reduce_final_map);
  const DeviceBuffer reduce_partial_map = upload_ints(kMetadataBufferNames[5], plan.reduce_partial_map);
  LaunchOutputBuffers outputs(ws.partial_o_floats, ws.partial_lse_floats, rows, shape.lv, p.o_dtype);

  PersistentArgs args;
  args.shape = shape;
  args.plan = info;
  args.metadata = {work_meta_data.as<std::int32_t>(),   work_indptr.as<std::int32_t>(),
                   work_info_set.as<std::int32_t>(),    reduce_indptr.as<std::int32_t>(),
                   reduce_final_map.as<std::int32_t>(), reduce_partial_map.as<std::int32_t>()};
  args.q = q.data();
  args.kv_cache = kv.data();
  args.kv_indices = kv_indices.as<std::int32_t>();
  args.qo_indptr = qo_indptr.as<std::int32_t>();
  outputs.bind(args);
  args.portable_kernels = portable;
  launch_mla_decode_persistent(args);

  CanaryReport canaries = verify_canaries({&q, &kv, &kv_indices, &qo_indptr, &work_meta_data, &work_indptr,
                                           &work_info_set, &reduce_indptr, &reduce_final_map, &reduce_partial_map,
                                           &outputs.partial_o, &outputs.partial_lse, &outputs.o, &outputs.lse});
  return {read_launch_outputs(p, outputs, std::move(canaries)), header, std::move(walk), persistent_takes_wgmma(args)};
}

}  // namespace mlacheck::kernels
