#pragma once
// Generator pieces shared by the descriptors' generators.
#include <string>

#include <rapidcheck.h>

namespace mlacheck {

// Cache lengths drawn from the kernels' geometry (STYLE 11): 1, the smallest legal length, block
// size -1/+0/+1, two blocks +1, primes, and uniform lengths, in [min_len, max(min_len, cap)].
// min_len is the request's q_len (query tokens are part of the cache) or 1.
rc::Gen<int> gen_kv_len(int min_len, int block_size, int cap);

// A cap that grows with rapidcheck's size (0..100 by default) from a few tokens to `largest`,
// so small cases come first and counterexamples shrink toward short caches.
int size_cap(int size, int largest);

// "case" or a random valid name ([A-Za-z0-9_.-]+), so repro strings carry arbitrary names.
rc::Gen<std::string> gen_problem_name();

}  // namespace mlacheck
