#pragma once
// Page-index expansion on the device (UPSTREAM S3): the MLA kernels see page size 1, so a block
// table becomes one flat slot per cached token,
//   kv_indices[kv_indptr[b] + pos] = block_table[b][pos / block_size] * block_size + pos % block_size
// for pos in [0, kv_lens[b]), with kv_indptr the prefix sums of kv_lens, computed on the device.
// Host twin: reference/page_indices.hpp. Launchers: launchers.hpp. This header is plain C++.
#include <cstdint>

#include "core/mla_problem.hpp"

namespace mlacheck::layout {

// Device pointers of one expansion; sizes come from the problem.
struct PageIndexBuffers {
  // [batch, block_table_stride] block ids in [0, num_blocks). Entries past a request's
  // ceil(kv_len / block_size) blocks are never read (they hold -1 upstream).
  const std::int32_t* block_table = nullptr;
  int block_table_stride = 0;
  const std::int32_t* kv_lens = nullptr;  // [batch], equal to p.kv_lens
  std::int32_t* kv_indptr = nullptr;      // [batch + 1], written
  std::int32_t* kv_indices = nullptr;     // [sum of kv_lens], written
};

// Throws InvalidProblem for an invalid p, std::invalid_argument naming the buffer for a null
// pointer or a block table row shorter than p's longest request needs.
void check_expand_page_indices(const MlaDecodeProblem& p, const PageIndexBuffers& buffers);

// Throws std::invalid_argument for a null pointer, a negative count or a unit below 1.
void check_lengths_to_indptr(const std::int32_t* lengths, int count, const std::int32_t* indptr, int unit = 1);

// The form of the expansion's output. Our kernels are page-size-1 kernels and take the token form;
// the page form is what an engine hands a kernel it believes paged (fault kernel-ignores-page-size,
// UPSTREAM R8): kv_indptr counts pages, ceil(kv_len / block_size) per request, and kv_indices holds
// one block id per page.
enum class KvIndexForm : std::uint8_t { tokens, pages };

}  // namespace mlacheck::layout
