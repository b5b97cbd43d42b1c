// Head padding and un-padding (head_padding.hpp): a flat copy of head rows, one thread per
// `Word` of the destination, so writes are contiguous and reads contiguous within a row. The
// word is the widest (up to 16 bytes) that a row's bytes and both pointers allow.
#include "device/layout/head_padding.hpp"

#include "device/layout/launch_shape.hpp"
#include "device/layout/launchers.hpp"
#include "device/layout/vector_io.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::layout {

namespace {

template <class W>
__global__ void __launch_bounds__(kLayoutThreads)
    copy_head_rows_kernel(const W* src, W* dst, std::int64_t rows, int row_words, HeadRowMap map) {
  const std::int64_t units = rows * map.dst_heads * row_words;
  for (std::int64_t u = first_unit(); u < units; u += unit_stride()) {
    const int word = static_cast<int>(u % row_words);
    const std::int64_t dst_row = u / row_words;  // (row, destination head)
    const int head = static_cast<int>(dst_row % map.dst_heads);
    const std::int64_t row = dst_row / map.dst_heads;
    dst[u] = src[(row * map.src_heads + map.source(head)) * row_words + word];
  }
}

template <int kBytes>
void launch_copy(const void* src, void* dst, std::int64_t rows, std::size_t row_bytes, const HeadRowMap& map,
                 hipStream_t stream) {
  using W = typename Word<kBytes>::type;
  const auto row_words = static_cast<int>(row_bytes / kBytes);
  const std::int64_t units = rows * map.dst_heads * row_words;
  copy_head_rows_kernel<W><<<flat_grid(units), kLayoutThreads, 0, stream>>>(static_cast<const W*>(src),
                                                                            static_cast<W*>(dst), rows, row_words, map);
  GPU_CHECK_LAUNCH("copy_head_rows_kernel", stream);
}

void copy_head_rows(const void* src, void* dst, std::int64_t rows, std::size_t row_bytes, const HeadRowMap& map,
                    hipStream_t stream) {
  switch (head_copy_bytes(row_bytes, src, dst)) {
    case 16:
      return launch_copy<16>(src, dst, rows, row_bytes, map, stream);
    case 8:
      return launch_copy<8>(src, dst, rows, row_bytes, map, stream);
    case 4:
      return launch_copy<4>(src, dst, rows, row_bytes, map, stream);
    case 2:
      return launch_copy<2>(src, dst, rows, row_bytes, map, stream);
    default:
      return launch_copy<1>(src, dst, rows, row_bytes, map, stream);
  }
}

}  // namespace

// The maps validate the problem, so they come before anything else is derived from it.
void launch_pad_q_heads(const MlaDecodeProblem& p, const void* q, void* q_padded, StreamHandle stream_handle) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  const HeadRowMap map = pad_heads_map(p);
  const std::size_t element = storage_bytes(p.q_dtype);
  check_head_copy("pad_q_heads", q, "q", q_padded, "q_padded", element);
  copy_head_rows(q, q_padded, total_q_tokens(p), static_cast<std::size_t>(lk(p)) * element, map, stream);
}

void launch_unpad_o_heads(const MlaDecodeProblem& p, const void* o_padded, void* o, StreamHandle stream_handle) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  const HeadRowMap map = unpad_heads_map(p);
  const std::size_t element = storage_bytes(p.o_dtype);
  check_head_copy("unpad_o_heads", o_padded, "o_padded", o, "o", element);
  copy_head_rows(o_padded, o, total_q_tokens(p), static_cast<std::size_t>(p.kv_lora_rank) * element, map, stream);
}

void launch_unpad_lse_heads(const MlaDecodeProblem& p, const float* lse_padded, float* lse, StreamHandle stream_handle) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  const HeadRowMap map = unpad_heads_map(p);
  check_head_copy("unpad_lse_heads", lse_padded, "lse_padded", lse, "lse", sizeof(float));
  copy_head_rows(lse_padded, lse, total_q_tokens(p), sizeof(float), map, stream);
}

}  // namespace mlacheck::layout
