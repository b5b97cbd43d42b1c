// Builds without a GPU backend stage nothing in device memory (the device tests SKIP), so a device
// write is never reached; it throws to say so should that change.
#include <cstddef>
#include <stdexcept>

namespace mlacheck::staging_test {

void write_device_raw(void*, const void*, std::size_t) {
  throw std::logic_error("staging test: a device write in a build without a GPU backend");
}

}  // namespace mlacheck::staging_test
