#pragma once
// Generator pieces shared by the descriptors' generators.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

namespace mlacheck {

// An entry of `values` drawn with the given weights whatever the size, as rc::gen::weightedElement
// does, but shrinking toward the earlier entries: rapidcheck's element, elementOf and
// weightedElement never shrink, so counterexamples kept the q_len, widths and block size they were
// found with. Put the simplest entry first.
template <class T>
rc::Gen<T> weighted_shrinking_element(std::vector<std::pair<std::size_t, T>> weighted) {
  return [weighted = std::move(weighted)](const rc::Random& random, int) {
    std::size_t total = 0;
    for (const auto& w : weighted) total += w.first;
    auto pick = static_cast<std::size_t>(rc::Random(random).next() % total);
    std::size_t index = 0;
    while (pick >= weighted[index].first) pick -= weighted[index++].first;
    return rc::shrinkable::map(
        rc::shrinkable::shrinkRecur(index, [](std::size_t i) { return rc::shrink::towards<std::size_t>(i, 0); }),
        [weighted](std::size_t i) { return weighted[i].second; });
  };
}

// Equal weights: a uniform entry of `values` that shrinks toward the first.
template <class T>
rc::Gen<T> shrinking_element_of(const std::vector<T>& values) {
  std::vector<std::pair<std::size_t, T>> weighted;
  for (const T& v : values) weighted.emplace_back(1, v);
  return weighted_shrinking_element(std::move(weighted));
}

template <class T, class... Ts>
rc::Gen<T> shrinking_element(T first, Ts... rest) {
  return shrinking_element_of(std::vector<T>{first, static_cast<T>(rest)...});
}

// Cache lengths drawn from the kernels' geometry (STYLE 11): 1, the smallest legal length, block
// size -1/+0/+1, two blocks +1, the split-KV split length -1/+0/+1, primes, powers of two +1, and
// uniform lengths, in [min_len, max(min_len, cap)]. Shrinks toward the first edges (1, min_len).
// min_len is the request's q_len (query tokens are part of the cache) or 1.
rc::Gen<int> gen_kv_len(int min_len, int block_size, int cap);

// A cap that grows with rapidcheck's size (0..100 by default) from a few tokens to `largest`,
// so small cases come first and counterexamples shrink toward short caches.
int size_cap(int size, int largest);

// "case" or a random valid name ([A-Za-z0-9_.-]+), so repro strings carry arbitrary names.
rc::Gen<std::string> gen_problem_name();

}  // namespace mlacheck
