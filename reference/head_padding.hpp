#pragma once
// Head padding, the host twin of the planner's: kernels process at least 16 heads (and multiples
// of 16), so q is padded before the launch and O and LSE are un-padded after it. The mapping is
// core's padded_head_source / unpadded_head_location:
//   heads dividing 16:  repeat-interleave (q.repeat_interleave(16 / heads)), un-pad o[:, ::16/heads]
//   otherwise:          tile to the next multiple of 16 (padded head j reads head j % heads),
//                       un-pad o[:, :heads]
// Arrays are [rows, heads, inner] row-major: q has inner = Lk, O inner = Lv, LSE inner = 1.
#include <span>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

// [rows, heads(p), inner] -> [rows, padded_heads(p), inner].
template <class T>
std::vector<T> pad_heads(const MlaDecodeProblem& p, std::span<const T> x, int inner);

// [rows, padded_heads(p), inner] -> [rows, heads(p), inner].
template <class T>
std::vector<T> unpad_heads(const MlaDecodeProblem& p, std::span<const T> x, int inner);

}  // namespace mlacheck
