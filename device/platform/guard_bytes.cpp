#include "device/platform/guard_bytes.hpp"

#include <array>

namespace mlacheck {

std::span<const std::byte, kGuardBytes> guard_pattern() {
  static constexpr std::array<std::byte, kGuardBytes> kPattern = [] {
    std::array<std::byte, kGuardBytes> pattern{};
    for (std::size_t i = 0; i < pattern.size(); ++i) {
      pattern[i] = static_cast<std::byte>((0xA5 + 0x3B * i) & 0xFF);
    }
    return pattern;
  }();
  return kPattern;
}

std::vector<CanaryBreach> find_guard_breaches(const std::string& buffer, std::span<const std::byte, kGuardBytes> front,
                                              std::span<const std::byte, kGuardBytes> back) {
  const std::span<const std::byte, kGuardBytes> pattern = guard_pattern();
  // The front guard ends at the buffer's first byte, the back guard starts after its last.
  CanaryBreach front_breach{buffer, GuardSide::front, 0, 0};
  CanaryBreach back_breach{buffer, GuardSide::back, 0, 0};
  for (std::size_t i = 0; i < kGuardBytes; ++i) {
    if (front[i] != pattern[i]) {
      ++front_breach.changed_bytes;
      front_breach.gap = kGuardBytes - 1 - i;
    }
    if (back[i] != pattern[i]) {
      if (back_breach.changed_bytes++ == 0) back_breach.gap = i;
    }
  }
  std::vector<CanaryBreach> breaches;
  if (front_breach.changed_bytes > 0) breaches.push_back(std::move(front_breach));
  if (back_breach.changed_bytes > 0) breaches.push_back(std::move(back_breach));
  return breaches;
}

}  // namespace mlacheck
