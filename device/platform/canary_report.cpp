#include "device/platform/canary_report.hpp"

namespace mlacheck {

std::string CanaryReport::describe() const {
  if (intact()) return "guards intact";
  std::string text;
  for (const CanaryBreach& breach : breaches) {
    if (!text.empty()) text += "; ";
    const bool back = breach.side == GuardSide::back;
    text +=
        "buffer '" + breach.buffer + "': " + std::to_string(breach.changed_bytes) +
        (back ? " guard bytes after the end changed, nearest " : " guard bytes before the start changed, nearest ") +
        std::to_string(breach.gap) + (back ? " bytes past the end" : " bytes before the start");
  }
  return text;
}

}  // namespace mlacheck
