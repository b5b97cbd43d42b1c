#include "device/kernels/tests/fp8_widen_kernels.hpp"

#include <span>
#include <stdexcept>

#include "device/kernels/kernel_dispatch.hpp"
#include "device/kernels/lds_chunk.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/gpu_check.hpp"

namespace mlacheck::test {
namespace {

template <class S, class T>
__global__ void widen_chunks(const kernels::Chunk16* in, kernels::Chunk16* out, int chunks) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= chunks) return;
  kernels::Chunk16 widened[2];
  kernels::widen_chunk<S, T>(in[i], widened);
  out[2 * i] = widened[0];
  out[2 * i + 1] = widened[1];
}

}  // namespace

std::vector<std::uint16_t> widen_fp8_on_device(DType fp8, DType mma, const std::vector<std::uint8_t>& codes) {
  if (codes.size() % 16 != 0) throw std::invalid_argument("widen_fp8_on_device: codes must fill whole 16-code chunks");
  const int chunks = static_cast<int>(codes.size() / 16);
  const DeviceBuffer in = DeviceBuffer::from_host("fp8_codes", std::span(codes));
  DeviceBuffer out("widened_codes", codes.size() * 2);
  kernels::with_fp8_type("fp8", fp8, [&](auto fp8_tag) {
    kernels::with_16bit_type("mma", mma, [&](auto mma_tag) {
      using T = typename decltype(fp8_tag)::type;
      using S = typename decltype(mma_tag)::type;
      widen_chunks<S, T><<<static_cast<unsigned>((chunks + 127) / 128), 128>>>(in.as<kernels::Chunk16>(),
                                                                                out.as<kernels::Chunk16>(), chunks);
      GPU_CHECK_LAUNCH("widen_chunks", nullptr);
    });
  });
  return out.download<std::uint16_t>();
}

}  // namespace mlacheck::test
