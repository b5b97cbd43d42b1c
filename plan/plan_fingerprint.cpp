#include "plan/plan_fingerprint.hpp"

#include <cstdint>
#include <cstdio>
#include <string_view>

namespace mlacheck {

namespace {

// FNV-1a: stable across builds and platforms (std::hash is neither), and enough to tell two plans
// apart; it is no defence against a report forged to pass.
struct Fnv1a {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(std::string_view text) {
    for (unsigned char c : text) {
      h ^= c;
      h *= 0x100000001b3ull;
    }
    // A separator no id or repro string holds, so ("ab","c") and ("a","bc") differ.
    h ^= 0x1f;
    h *= 0x100000001b3ull;
  }
};

}  // namespace

std::string plan_fingerprint(const std::vector<RunCase>& plan) {
  Fnv1a f;
  for (const RunCase& c : plan) {
    f.add(c.id);
    f.add(c.kind == RunCase::Kind::oracle_self_check ? "oracle" : "device");
    f.add(c.repro);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(f.h));
  return hex;
}

}  // namespace mlacheck
