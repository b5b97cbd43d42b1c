#include "device/hip_backend/decode_path.hpp"

#include <cstdint>
#include <string>

namespace mlacheck {

DecodePathChoice choose_decode_path(const MlaDecodeProblem& p, int compute_units) {
  if (p.path == DecodePath::persistent) return {DecodePath::persistent, "requested"};
  if (p.path == DecodePath::split_kv) return {DecodePath::split_kv, "requested"};
  const std::string why = "auto: ";
  if (p.num_splits > 0) {
    return {DecodePath::split_kv, why + "num_splits=" + std::to_string(p.num_splits) + " is a split-KV setting"};
  }
  if (max_q_len(p) > kPersistentAutoMaxQLen) {
    return {DecodePath::split_kv, why + "q_len " + std::to_string(max_q_len(p)) + " > " +
                                      std::to_string(kPersistentAutoMaxQLen) + ", beyond speculative decode"};
  }
  const int requests = batch(p);
  if (requests >= compute_units) {
    return {DecodePath::persistent, why + std::to_string(requests) + " requests fill the " +
                                        std::to_string(compute_units) + " CUs; the plan balances their lengths"};
  }
  std::int64_t kv_total = 0;
  for (int len : p.kv_lens) kv_total += len;
  // max >= factor * mean, in integers: max * batch >= factor * total.
  if (std::int64_t{max_kv_len(p)} * requests >= std::int64_t{kUnevenKvFactor} * kv_total) {
    return {DecodePath::persistent, why + "uneven kv lengths (longest " + std::to_string(max_kv_len(p)) +
                                        " >= " + std::to_string(kUnevenKvFactor) +
                                        " x the mean); the plan splits the long ones"};
  }
  return {DecodePath::split_kv, why + std::to_string(requests) + " requests of similar length, fewer than the " +
                                    std::to_string(compute_units) + " CUs; uniform splits fill the device"};
}

}  // namespace mlacheck
