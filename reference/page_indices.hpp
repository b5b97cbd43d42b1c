#pragma once
// Page-index expansion, the host twin of the device kernel expand_page_indices. MLA decode
// kernels see page size 1, so a block table is turned into one flat slot per cached token:
//   slot(b, pos) = block_table[b * stride + pos / block_size] * block_size + pos % block_size
// for pos in [0, kv_lens[b]), request after request.
#include <cstdint>
#include <span>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

struct PageIndices {
  std::vector<std::int32_t> kv_indices;  // slot of token pos of request b at kv_indptr[b] + pos
  std::vector<std::int32_t> kv_indptr;   // prefix sums of kv_lens, size batch + 1
};

// Throws std::invalid_argument when a request needs more entries than its table row holds, or
// reads an entry outside [0, num_blocks): a table that does not cover kv_len is an input bug,
// never something to read past.
PageIndices expand_page_indices(std::span<const std::int32_t> block_table, int block_table_stride,
                                std::span<const int> kv_lens, int block_size, int num_blocks);

PageIndices expand_page_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

// The page form of the same table, the host twin of the expansion's KvIndexForm::pages (what an
// engine hands a kernel it believes paged; fault kernel-ignores-page-size, UPSTREAM R8):
// kv_indptr is the prefix sums of the page counts ceil(kv_len / block_size), and page i of
// request b holds block_table[b * stride + i]. Throws as expand_page_indices does.
PageIndices page_form_indices(std::span<const std::int32_t> block_table, int block_table_stride,
                              std::span<const int> kv_lens, int block_size, int num_blocks);

PageIndices page_form_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in);

}  // namespace mlacheck
