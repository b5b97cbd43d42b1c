#include "device/staging/guard_pattern.hpp"

namespace mlacheck {

std::vector<CanaryBreach> guard_breaches(const std::string& name, std::span<const std::byte> front,
                                         std::span<const std::byte> back) {
  CanaryBreach front_breach{name, GuardSide::front, 0, 0};
  CanaryBreach back_breach{name, GuardSide::back, 0, 0};
  for (std::size_t i = 0; i < kGuardPattern.size(); ++i) {
    if (front[i] != kGuardPattern[i]) {
      ++front_breach.changed_bytes;
      front_breach.gap = kGuardPattern.size() - 1 - i;  // the last changed byte is nearest the buffer
    }
    if (back[i] != kGuardPattern[i] && back_breach.changed_bytes++ == 0) back_breach.gap = i;
  }
  std::vector<CanaryBreach> breaches;
  if (front_breach.changed_bytes > 0) breaches.push_back(std::move(front_breach));
  if (back_breach.changed_bytes > 0) breaches.push_back(std::move(back_breach));
  return breaches;
}

}  // namespace mlacheck
