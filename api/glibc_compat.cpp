// arc4random for the statically linked libstdc++: its std::random_device (used by rapidcheck)
// calls arc4random, which glibc has only since 2.36. Defined here over getrandom(2) (glibc 2.25),
// the static link binds to this hidden copy, and the library loads on older systems (Ubuntu
// 22.04's glibc 2.35, the ROCm images' base). api/tests/check_glibc_needs.py checks the result.
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" __attribute__((visibility("hidden"))) std::uint32_t arc4random(void) {
  std::uint32_t value = 0;
  auto* out = reinterpret_cast<unsigned char*>(&value);
  std::size_t filled = 0;
  while (filled < sizeof value) {
    const ssize_t got = getrandom(out + filled, sizeof value - filled, 0);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      std::abort();  // as glibc's arc4random: no entropy is not an error a caller can handle
    }
    filled += static_cast<std::size_t>(got);
  }
  return value;
}
