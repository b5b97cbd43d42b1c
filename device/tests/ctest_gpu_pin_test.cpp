// Under `ctest --resource-spec-file`, each device test is handed one GPU and the process must
// see exactly that one (device/platform/ctest_gpu_pin.cpp). Outside such a run there is nothing
// to check.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

TEST(CtestGpuPin, ProcessSeesTheGpuCtestAssigned) {
  const char* spec = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (spec == nullptr) GTEST_SKIP() << "not run by ctest with a GPU resource spec";
#if defined(MLACHECK_GPU_HIP)
  const char* visible = std::getenv("HIP_VISIBLE_DEVICES");
#else
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
#endif
  const std::string text(spec);
  const std::size_t id = text.find("id:") + 3;
  const std::string gpu = text.substr(id, text.find(',', id) - id);
  if (gpu == "none") GTEST_SKIP() << "the resource spec's stand-in for a machine without GPUs";
  ASSERT_NE(visible, nullptr);
  EXPECT_EQ(std::string(visible), gpu);
}

}  // namespace
