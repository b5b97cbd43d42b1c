#include "persistent_run.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include "device/persistent/persistent_decode.hpp"
#include "device/planner/plan_inputs.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/poison.hpp"
#include "reference/head_padding.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck::kernels {

namespace {

template <class Code>
DeviceBuffer upload_codes(const std::string& name, DType t, std::span<const float> values) {
  std::vector<Code> codes(values.size());
  std::transform(values.begin(), values.end(), codes.begin(), [t](float v) { return static_cast<Code>(encode(t, v)); });
  return DeviceBuffer::from_host(name, std::span(codes));
}

// Values of dtype t, encoded bit-exactly into its storage codes.
DeviceBuffer upload_encoded(const std::string& name, DType t, std::span<const float> values) {
  return storage_bytes(t) == 2 ? upload_codes<std::uint16_t>(name, t, values)
                               : upload_codes<std::uint8_t>(name, t, values);
}

DeviceBuffer upload_ints(std::string_view name, const std::vector<std::int32_t>& host) {
  return DeviceBuffer::from_host(std::string(name), std::span(host));
}

}  // namespace

PersistentRun run_persistent(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int num_cus, bool portable) {
  const PlannerInputs plan_in = planner_inputs(p);
  const MetadataInfo info = metadata_info(plan_in, num_cus);
  HostMetadata plan = allocate_metadata(info);
  PersistentRun out;
  out.header = build_metadata(plan_in.qo_indptr, plan_in.kv_indptr, info, view(plan));
  out.walk = walk_plan(view(std::as_const(plan)), plan_in.qo_indptr, plan_in.kv_indptr, plan_in.padded_heads);

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
  DeviceBuffer partial_o("partial_o", ws.partial_o_floats * sizeof(float));
  DeviceBuffer partial_lse("partial_lse", ws.partial_lse_floats * sizeof(float));
  DeviceBuffer o("o_padded", rows * std::size_t(shape.lv) * storage_bytes(p.o_dtype));
  DeviceBuffer lse("lse_padded", rows * sizeof(float));
  partial_o.poison(kPoisonF32);
  partial_lse.poison(kPoisonF32);
  o.poison(poison16(p.o_dtype));
  lse.poison(kPoisonF32);

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
  args.partial_o = partial_o.as<float>();
  args.partial_lse = partial_lse.as<float>();
  args.o = o.data();
  args.lse = lse.as<float>();
  args.portable_kernels = portable;
  launch_mla_decode_persistent(args);
  out.wgmma = persistent_takes_wgmma(args);

  const std::vector<std::uint16_t> o_codes = o.download<std::uint16_t>();
  const std::vector<float> lse_padded = lse.download<float>();
  out.canaries =
      verify_canaries({&q, &kv, &kv_indices, &qo_indptr, &work_meta_data, &work_indptr, &work_info_set, &reduce_indptr,
                       &reduce_final_map, &reduce_partial_map, &partial_o, &partial_lse, &o, &lse});
  out.o_unwritten = count_poisoned(std::span<const std::uint16_t>(o_codes), poison16(p.o_dtype));
  out.lse_unwritten = count_poisoned(std::span<const float>(lse_padded), kPoisonF32);
  std::vector<float> o_padded(o_codes.size());
  std::transform(o_codes.begin(), o_codes.end(), o_padded.begin(),
                 [&](std::uint16_t c) { return decode(p.o_dtype, c); });
  out.o = unpad_heads<float>(p, o_padded, shape.lv);
  out.lse = unpad_heads<float>(p, lse_padded, 1);
  return out;
}

}  // namespace mlacheck::kernels
