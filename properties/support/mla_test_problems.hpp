#pragma once
// Builders of the small mla_decode descriptors that host and device tests write by hand, so a test
// states only what its case is about. Each returns the descriptor before with_defaults(): the
// caller sets what its case needs and finishes with with_defaults(), so the derived fields (scale,
// num_blocks) follow every field it set. Test-only, header-only: any test target that links
// mlacheck_core can include it.
#include <string>
#include <utility>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

// The requests of a batch: per request, its cached tokens and its query tokens; the cache's block
// size.
struct TestRequests {
  std::vector<int> kv_lens;
  std::vector<int> q_lens;
  int block_size = 16;
};

// A problem named `name` of `total_heads` query heads over `requests`; every other field at its
// default (DeepSeek's latent: Lv 512, R 64).
inline MlaDecodeProblem test_problem(std::string name, int total_heads, TestRequests requests) {
  MlaDecodeProblem p;
  p.name = std::move(name);
  p.total_heads = total_heads;
  p.kv_lens = std::move(requests.kv_lens);
  p.q_lens = std::move(requests.q_lens);
  p.block_size = requests.block_size;
  return p;
}

// The same with a small latent (Lv 64, R 16): 80-wide cache rows keep host oracles and staged
// buffers small while a row still spans several of the kernels' 16-wide tiles.
inline MlaDecodeProblem small_latent_problem(std::string name, int total_heads, TestRequests requests) {
  MlaDecodeProblem p = test_problem(std::move(name), total_heads, std::move(requests));
  p.kv_lora_rank = 64;
  p.rope_dim = 16;
  return p;
}

// An unnamed problem of `total_heads` heads and latent widths Lv and R over `requests`: the kernel
// tests walk the kernels' tile geometry through these.
inline MlaDecodeProblem latent_problem(int total_heads, int lv, int rope, TestRequests requests) {
  MlaDecodeProblem p = test_problem("case", total_heads, std::move(requests));
  p.kv_lora_rank = lv;
  p.rope_dim = rope;
  return p;
}

// p run as a decode sequence of `steps` steps over one cache; per request, the step it joins and
// the first step it has left.
inline MlaDecodeProblem as_sequence(MlaDecodeProblem p, int steps, std::vector<int> joins, std::vector<int> leaves) {
  p.steps = steps;
  p.joins = std::move(joins);
  p.leaves = std::move(leaves);
  return p;
}

// p as rank `rank` of `tp` tensor-parallel ranks: its total_heads / tp heads of the model.
inline MlaDecodeProblem on_tp_rank(MlaDecodeProblem p, int tp, int rank) {
  p.tp = tp;
  p.tp_rank = rank;
  return p;
}

// p with its query, cache and output dtypes and the cache's dequantisation scale.
inline MlaDecodeProblem with_dtypes(MlaDecodeProblem p, DType q, DType kv, DType o, float kv_scale = 1.0f) {
  p.q_dtype = q;
  p.kv_dtype = kv;
  p.o_dtype = o;
  p.kv_scale = kv_scale;
  return p;
}

// Three slots over five steps: slot 0 leaves at step 2, slot 1 stays with q_len 2 (MTP), slot 2
// joins at step 2 into the blocks slot 0 gave back.
inline MlaDecodeProblem join_and_leave_sequence() {
  return as_sequence(test_problem("seq", 16, {{20, 9, 5}, {1, 2, 1}, 8}), 5, {0, 0, 2}, {2, 5, 5});
}

}  // namespace mlacheck
