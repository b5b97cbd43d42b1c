#include "device/staging/guarded_buffer_set.hpp"

#include "core/poison_codes.hpp"

namespace mlacheck {

GuardedBuffer& GuardedBufferSet::input(std::string name, std::span<const std::byte> host) {
  GuardedBuffer& b = *buffers_.emplace_back(make_guarded_buffer(memory_, std::move(name), host.size()));
  b.upload(host);
  return b;
}

GuardedBuffer& GuardedBufferSet::output(std::string name, DType t, std::size_t count) {
  GuardedBuffer& b = *buffers_.emplace_back(make_guarded_buffer(memory_, std::move(name), count * storage_bytes(t)));
  dtype_poison(b, t);
  return b;
}

GuardedBuffer& GuardedBufferSet::indices(std::string name, std::size_t count) {
  GuardedBuffer& b =
      *buffers_.emplace_back(make_guarded_buffer(memory_, std::move(name), count * sizeof(std::int32_t)));
  b.poison(kPoisonIndex);
  return b;
}

GuardedBuffer& GuardedBufferSet::scratch(std::string name, std::size_t bytes) {
  GuardedBuffer& b = *buffers_.emplace_back(make_guarded_buffer(memory_, std::move(name), bytes));
  workspace_poison(b);
  return b;
}

std::vector<BrokenCanary> GuardedBufferSet::broken_canaries() const {
  std::vector<BrokenCanary> out;
  for (const auto& b : buffers_) {
    for (const CanaryBreach& breach : b->check_guards()) {
      out.push_back({breach.buffer, breach.side == GuardSide::front ? "before" : "after"});
    }
  }
  return out;
}

GuardedBuffer* GuardedBufferSet::find(std::string_view name) noexcept {
  for (const auto& b : buffers_) {
    if (b->name() == name) return b.get();
  }
  return nullptr;
}

void dtype_poison(GuardedBuffer& b, DType t) {
  const std::uint32_t word = poison_word(t);
  switch (storage_bytes(t)) {
    case 1:
      b.poison(static_cast<std::uint8_t>(word));
      break;
    case 2:
      b.poison(static_cast<std::uint16_t>(word));
      break;
    default:
      b.poison(word);
      break;
  }
}

void workspace_poison(GuardedBuffer& b) {
  if (b.bytes() % 4 == 0) {
    b.poison(kPoisonIndex);
  } else if (b.bytes() % 2 == 0) {
    b.poison(kPoisonBf16);
  } else {
    b.poison(kPoisonFp8E4M3Fn);
  }
}

}  // namespace mlacheck
