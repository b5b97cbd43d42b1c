#include "generators/shared_gens.hpp"

#include <algorithm>
#include <vector>

namespace mlacheck {

int size_cap(int size, int largest) { return std::max(4, largest * std::clamp(size, 0, 100) / 100); }

rc::Gen<int> gen_kv_len(int min_len, int block_size, int cap) {
  cap = std::max(cap, min_len);
  std::vector<int> edges;
  // 255/256/257: the split-KV path's shortest automatic split -1/+0/+1; 1021..4093: primes and
  // powers of two +1, where tiles, splits and the persistent planner's 16-token granules meet unevenly.
  for (int v : {1, min_len, block_size - 1, block_size, block_size + 1, 2 * block_size + 1, 2, 3, 5, 7, 13, 31, 61, 97,
                127, 255, 256, 257, 509, 513, 1021, 1025, 2039, 2049, 4093}) {
    if (v >= min_len && v <= cap) edges.push_back(v);
  }
  return rc::gen::oneOf(shrinking_element_of(edges), rc::gen::inRange(min_len, cap + 1));
}

rc::Gen<std::string> gen_problem_name() {
  static const std::string kNameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  return rc::gen::oneOf(rc::gen::just(std::string("case")),
                        rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::elementOf(kNameChars))));
}

}  // namespace mlacheck
