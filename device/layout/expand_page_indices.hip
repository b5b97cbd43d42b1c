// Page-index expansion (page_indices.hpp): per request (grid y), one thread per cached token.
// Consecutive threads write consecutive slots and read the same block-table entry.
#include "device/layout/launch_shape.hpp"
#include "device/layout/launchers.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::layout {

namespace {

struct ExpandArgs {
  const std::int32_t* block_table;
  int block_table_stride;
  const std::int32_t* kv_lens;
  const std::int32_t* kv_indptr;
  int batch;
  int block_size;
  int num_blocks;
  std::int32_t* kv_indices;
  int total_tokens;  // kv_indices' length: writes never go past it, whatever the device lengths say
  // Fault block-table-unexpanded (UPSTREAM S3): the block id itself is handed to the page-size-1
  // kernels as the token's slot, as before the table was expanded to b*K .. b*K+K-1.
  bool unexpanded;
  // The page form (KvIndexForm::pages): one block id per page, at kv_indptr (in pages) + pos / block_size.
  bool paged;
};

__global__ void __launch_bounds__(kLayoutThreads) expand_page_indices_kernel(ExpandArgs a) {
  for (int b = static_cast<int>(blockIdx.y); b < a.batch; b += static_cast<int>(gridDim.y)) {
    const std::int32_t* row = a.block_table + static_cast<std::int64_t>(b) * a.block_table_stride;
    const int first = a.kv_indptr[b];
    const int kv_len = a.kv_lens[b];
    for (std::int64_t u = first_unit(); u < kv_len; u += unit_stride()) {
      const int pos = static_cast<int>(u);
      if (a.paged && pos % a.block_size != 0) continue;
      const int at = a.paged ? first + pos / a.block_size : first + pos;
      const int block = table_block(row, a.block_table_stride, a.block_size, a.num_blocks, pos);
      if (at < 0 || at >= a.total_tokens || block < 0) continue;
      a.kv_indices[at] = a.unexpanded || a.paged ? block : block * a.block_size + pos % a.block_size;
    }
  }
}

}  // namespace

void launch_expand_page_indices(const MlaDecodeProblem& problem, const PageIndexBuffers& buffers, StreamHandle stream_handle,
                                const FaultSet& faults, KvIndexForm form) {
  const auto stream = static_cast<hipStream_t>(stream_handle);
  check_expand_page_indices(problem, buffers);
  const MlaDecodeProblem p = with_defaults(problem);
  const bool paged = form == KvIndexForm::pages;
  launch_lengths_to_indptr(buffers.kv_lens, batch(p), buffers.kv_indptr, stream, paged ? p.block_size : 1);
  const ExpandArgs args{
      buffers.block_table, buffers.block_table_stride, buffers.kv_lens,    buffers.kv_indptr, batch(p), p.block_size,
      p.num_blocks,        buffers.kv_indices,         kv_indptr(p).back(),
      faults.has(Fault::block_table_unexpanded), paged};
  expand_page_indices_kernel<<<request_grid(batch(p), max_kv_len(p)), kLayoutThreads, 0, stream>>>(args);
  GPU_CHECK_LAUNCH("expand_page_indices_kernel", stream);
}

}  // namespace mlacheck::layout
