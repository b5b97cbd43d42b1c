// What the guard canaries around device buffers found after a launch. A broken guard means a
// kernel wrote outside its buffer: the case is FAILED with the buffer named, not ERRORED, so
// this is a value to record, never an exception.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mlacheck {

enum class GuardSide { front, back };

struct CanaryBreach {
  std::string buffer;
  GuardSide side = GuardSide::back;
  std::size_t changed_bytes = 0;
  // Bytes between the buffer's edge and the nearest changed guard byte: 0 means the write
  // touched the byte right next to the buffer (the typical off-by-one element).
  std::size_t gap = 0;
};

struct CanaryReport {
  std::vector<CanaryBreach> breaches;

  bool intact() const noexcept { return breaches.empty(); }
  // "guards intact", or one clause per breach joined by "; ", e.g.
  // "buffer 'out': 4 guard bytes after the end changed, nearest 0 bytes past the end"
  std::string describe() const;
};

}  // namespace mlacheck
