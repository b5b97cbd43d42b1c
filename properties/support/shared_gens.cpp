#include "properties/support/shared_gens.hpp"

#include <algorithm>
#include <vector>

namespace mlacheck {

int size_cap(int size, int largest) { return std::max(4, largest * std::clamp(size, 0, 100) / 100); }

rc::Gen<int> gen_kv_len(int min_len, int block_size, int cap) {
  cap = std::max(cap, min_len);
  std::vector<int> edges;
  for (int v : {1, min_len, block_size - 1, block_size, block_size + 1, 2 * block_size + 1, 2, 3, 5, 7, 13, 31, 61, 97,
                127, 257, 509, 513}) {
    if (v >= min_len && v <= cap) edges.push_back(v);
  }
  return rc::gen::oneOf(rc::gen::elementOf(edges), rc::gen::inRange(min_len, cap + 1));
}

rc::Gen<std::string> gen_problem_name() {
  static const std::string kNameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
  return rc::gen::oneOf(rc::gen::just(std::string("case")),
                        rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::elementOf(kNameChars))));
}

}  // namespace mlacheck
