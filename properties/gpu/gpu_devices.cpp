#include "properties/gpu/gpu_devices.hpp"

#include <memory>
#include <vector>

namespace mlacheck {

namespace {

struct Devices {
  std::vector<std::unique_ptr<Backend>> owned;
  std::vector<Backend*> backends;
  std::string reason = "the GPU environment was not set up";
};

Devices& devices() {
  static Devices d;
  return d;
}

}  // namespace

void GpuDevices::SetUp() {
  Devices& d = devices();
  // make_hip_backend answers with a reason past the last device, so asking until it does finds them all.
  for (int index = 0;; ++index) {
    BackendOrReason made = make_hip_backend(index);
    if (!made.backend) {
      if (index == 0) d.reason = made.reason;
      break;
    }
    d.backends.push_back(made.backend.get());
    d.owned.push_back(std::move(made.backend));
  }
}

void GpuDevices::TearDown() {
  devices().backends.clear();
  devices().owned.clear();
}

std::span<Backend* const> gpu_backends() { return devices().backends; }

std::optional<std::string> gpu_unavailable() {
  if (devices().backends.empty()) return devices().reason;
  return std::nullopt;
}

}  // namespace mlacheck
