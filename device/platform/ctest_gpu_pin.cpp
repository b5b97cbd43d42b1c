// CTest resource groups: when ctest runs with a resource spec (scripts/ctest-gpu-resources.sh)
// it hands each device test one slot of a GPU in CTEST_RESOURCE_GROUP_0_GPUS ("id:2,slots:1");
// a GPU has several slots, so several device tests share it at once. Pinning the
// process to that GPU through the runtime's visibility variable, before any runtime call, makes
// device 0 of every test that GPU, so ctest -j spreads the device tests over all GPUs without a
// line of test code knowing about it.
#include <cstdlib>
#include <string>

namespace mlacheck {
namespace {

#if defined(MLACHECK_GPU_HIP)
constexpr const char* kVisibleDevices = "HIP_VISIBLE_DEVICES";
#else
constexpr const char* kVisibleDevices = "CUDA_VISIBLE_DEVICES";
#endif

bool pin_to_ctest_gpu() {
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) return false;
  const std::string text(spec);
  const std::size_t id = text.find("id:");
  if (id == std::string::npos) return false;
  const std::string gpu = text.substr(id + 3, text.find(',', id) - (id + 3));
  // scripts/ctest-gpu-resources.sh names its stand-in for a machine without GPUs "none": nothing
  // to pin to.
  if (gpu.empty() || gpu.find_first_not_of("0123456789") != std::string::npos) return false;
  return ::setenv(kVisibleDevices, gpu.c_str(), 1) == 0;
}

// Runs during static initialisation, before main and so before the runtime reads its variables.
[[maybe_unused]] const bool pinned_to_ctest_gpu = pin_to_ctest_gpu();

}  // namespace
}  // namespace mlacheck
