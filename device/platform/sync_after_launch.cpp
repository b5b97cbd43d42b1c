#include "device/platform/sync_after_launch.hpp"

#include <atomic>

namespace mlacheck {
namespace {
std::atomic<bool> enabled{false};
}

void set_sync_after_launch(bool on) noexcept { enabled.store(on); }
bool sync_after_launch() noexcept { return enabled.load(); }

}  // namespace mlacheck
