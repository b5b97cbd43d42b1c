#include "device/layout/tests/layout_runs.hpp"

#include "device/layout/launchers.hpp"
#include "device/layout/tests/codes.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/gpu_check.hpp"
#include "device/platform/poison.hpp"

namespace mlacheck::layout::test {

namespace {

// A stream of its own, so the launchers are exercised off the default stream.
class Stream {
 public:
  Stream() { GPU_CHECK(hipStreamCreate(&stream_)); }
  ~Stream() { (void)hipStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  hipStream_t get() const { return stream_; }
  void synchronize() const { GPU_CHECK(hipStreamSynchronize(stream_)); }

 private:
  hipStream_t stream_ = nullptr;
};

// The output type's poison code (core/poison_codes.hpp) in every element, so poisoned elements
// never pass as values; fp8 outputs get a pair of codes per 16-bit fill word.
void poison(DeviceBuffer& buffer, DType t) {
  switch (storage_bytes(t)) {
    case 4:
      return buffer.poison(kPoisonF32);
    case 2:
      return buffer.poison(poison16(t));
    default:
      return buffer.poison(static_cast<std::uint16_t>(poison_word(t)));
  }
}

}  // namespace

IndptrRun run_lengths_to_indptr(std::span<const std::int32_t> lengths, int unit) {
  const Stream stream;
  const DeviceBuffer d_lengths = DeviceBuffer::from_host("lengths", lengths);
  DeviceBuffer d_indptr("indptr", (lengths.size() + 1) * sizeof(std::int32_t));
  d_indptr.poison(kPoisonIndex);
  launch_lengths_to_indptr(d_lengths.as<std::int32_t>(), static_cast<int>(lengths.size()), d_indptr.as<std::int32_t>(),
                           stream.get(), unit);
  stream.synchronize();
  return {d_indptr.download<std::int32_t>(), verify_canaries({&d_lengths, &d_indptr})};
}

ExpandRun run_expand_page_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in, KvIndexForm form) {
  const Stream stream;
  const std::vector<std::int32_t> kv_lens(p.kv_lens.begin(), p.kv_lens.end());
  const DeviceBuffer d_table = DeviceBuffer::from_host("block_table", std::span(in.block_table));
  const DeviceBuffer d_lens = DeviceBuffer::from_host("kv_lens", std::span(kv_lens));
  DeviceBuffer d_indptr("kv_indptr", (kv_lens.size() + 1) * sizeof(std::int32_t));
  DeviceBuffer d_indices("kv_indices", static_cast<std::size_t>(kv_indptr(p).back()) * sizeof(std::int32_t));
  d_indptr.poison(kPoisonIndex);
  d_indices.poison(kPoisonIndex);
  const PageIndexBuffers buffers{d_table.as<std::int32_t>(), in.block_table_stride, d_lens.as<std::int32_t>(),
                                 d_indptr.as<std::int32_t>(), d_indices.as<std::int32_t>()};
  launch_expand_page_indices(p, buffers, stream.get(), {}, form);
  stream.synchronize();
  return {d_indptr.download<std::int32_t>(), d_indices.download<std::int32_t>(),
          verify_canaries({&d_table, &d_lens, &d_indptr, &d_indices})};
}

HeadCopyRun run_head_copy(HeadCopy which, const MlaDecodeProblem& p, std::span<const std::uint8_t> in,
                          std::size_t out_bytes) {
  const Stream stream;
  const DeviceBuffer d_in = DeviceBuffer::from_host("head_copy_in", in);
  DeviceBuffer d_out("head_copy_out", out_bytes);
  switch (which) {
    case HeadCopy::pad_q:
      poison(d_out, p.q_dtype);
      launch_pad_q_heads(p, d_in.data(), d_out.data(), stream.get());
      break;
    case HeadCopy::unpad_o:
      poison(d_out, p.o_dtype);
      launch_unpad_o_heads(p, d_in.data(), d_out.data(), stream.get());
      break;
    case HeadCopy::unpad_lse:
      poison(d_out, DType::f32);
      launch_unpad_lse_heads(p, d_in.as<float>(), d_out.as<float>(), stream.get());
      break;
  }
  stream.synchronize();
  return {d_out.download<std::uint8_t>(), verify_canaries({&d_in, &d_out})};
}

GatherRun run_kv_gather(const KvGatherProblem& problem, const KvGatherInputs& in) {
  const KvGatherProblem p = with_defaults(problem);
  const Stream stream;
  const std::vector<std::uint8_t> cache = encode_bytes(p.cache_dtype, in.cache);
  const std::vector<std::int32_t> kv_lens(p.kv_lens.begin(), p.kv_lens.end());
  const DeviceBuffer d_cache = DeviceBuffer::from_host("cache", std::span(cache));
  const DeviceBuffer d_table = DeviceBuffer::from_host("block_table", std::span(in.block_table));
  const DeviceBuffer d_lens = DeviceBuffer::from_host("kv_lens", std::span(kv_lens));
  DeviceBuffer d_cu("cu_seq_lens", (kv_lens.size() + 1) * sizeof(std::int32_t));
  const std::size_t out_bytes = static_cast<std::size_t>(total_tokens(p)) * static_cast<std::size_t>(p.num_kv_heads) *
                                static_cast<std::size_t>(p.head_size) * storage_bytes(p.out_dtype);
  DeviceBuffer d_k("k_out", out_bytes);
  DeviceBuffer d_v("v_out", out_bytes);
  poison(d_k, p.out_dtype);
  poison(d_v, p.out_dtype);
  launch_lengths_to_indptr(d_lens.as<std::int32_t>(), batch(p), d_cu.as<std::int32_t>(), stream.get());
  const KvGatherBuffers buffers{
      d_cache.data(), d_table.as<std::int32_t>(), in.block_table_stride, d_cu.as<std::int32_t>(), d_k.data(),
      d_v.data()};
  launch_kv_gather(p, buffers, stream.get());
  stream.synchronize();
  return {d_k.download<std::uint8_t>(), d_v.download<std::uint8_t>(), plan_kv_gather(p, buffers),
          verify_canaries({&d_cache, &d_table, &d_lens, &d_cu, &d_k, &d_v})};
}

}  // namespace mlacheck::layout::test
