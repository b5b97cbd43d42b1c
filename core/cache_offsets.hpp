#pragma once
// Where a cache row starts, as an element offset from the pool's base, on the host and on both GPU
// vendors. A pool of num_blocks * block_size rows of Lk codes passes 2^32 bytes long before its
// 32-bit slot indices run out (bf16, Lk 576: after 3.7M slots, block 116509 at block size 32), so
// the offset is formed in 64 bits from the 32-bit slot.
#include <cstdint>

#include "core/dtype_convert.hpp"  // MLACHECK_HD

namespace mlacheck {

MLACHECK_HD constexpr std::int64_t cache_row_offset(std::int32_t slot, int row_elements) {
  return std::int64_t{slot} * row_elements;
}

// The mistake of UPSTREAM R4 (aiter #5765, FlashInfer #3130): the byte offset slot * row_bytes
// formed in 32 bits (an int32 product, or a buffer load's 32-bit offset), so a row 2^32 bytes or
// more past the base is read 2^32 * k bytes lower, from another block. Fault cache-offset-32bit
// reads rows here; a row below 4 GiB gets its right offset.
MLACHECK_HD constexpr std::int64_t wrapped_cache_row_offset(std::int32_t slot, int row_elements, int element_bytes) {
  const std::uint32_t bytes = static_cast<std::uint32_t>(slot) * static_cast<std::uint32_t>(row_elements) *
                              static_cast<std::uint32_t>(element_bytes);
  return static_cast<std::int64_t>(bytes / static_cast<std::uint32_t>(element_bytes));
}

}  // namespace mlacheck
