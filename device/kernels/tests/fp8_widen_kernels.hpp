// Host entry to the device's fp8 widening (lds_chunk.hpp: widen_chunk, the path both decode
// kernels stage fp8 q and caches through), for fp8_widen_device_test.cpp. The test is plain C++;
// the kernel sits in fp8_widen_kernels.hip.
#pragma once

#include <cstdint>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck::test {

// The codes of the 16-bit MMA type `mma` (bf16 or f16) the device widens `codes` (e4m3 codes of the
// variant `fp8`, a whole number of 16-code chunks) into, one chunk a thread, as the kernels do.
std::vector<std::uint16_t> widen_fp8_on_device(DType fp8, DType mma, const std::vector<std::uint8_t>& codes);

}  // namespace mlacheck::test
