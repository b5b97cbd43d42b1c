#pragma once
// The GPUs the properties run on: one backend per visible device, made once for the whole run by
// a global environment (STYLE 12) rather than per case, and the reason when there is none.
#include <optional>
#include <span>
#include <string>

#include <gtest/gtest.h>

#include "device/backend.hpp"

namespace mlacheck {

class GpuDevices : public ::testing::Environment {
 public:
  void SetUp() override;
  // Backends are released here, before the GPU runtime shuts down at exit.
  void TearDown() override;
};

// The backends of the visible GPUs, device 0 first; empty without a GPU.
std::span<Backend* const> gpu_backends();
// Why no GPU property can run (the case is SKIPPED with it), or nullopt when a GPU is usable.
std::optional<std::string> gpu_unavailable();

}  // namespace mlacheck
