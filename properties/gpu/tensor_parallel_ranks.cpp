#include "properties/gpu/tensor_parallel_ranks.hpp"

#include <algorithm>
#include <future>
#include <stdexcept>
#include <string>
#include <vector>

namespace mlacheck {

namespace {

MlaDecodeProblem rank_of(const MlaDecodeProblem& p, int rank) {
  MlaDecodeProblem shard = p;
  shard.tp_rank = rank;
  return shard;
}

// Copies each token's block of `width` elements per head of `rank` into the model's layout.
template <class T>
void place_rank(const MlaDecodeProblem& p, int rank, std::size_t width, const std::vector<T>& from,
                std::vector<T>& to) {
  const auto h = static_cast<std::size_t>(heads(p));
  const auto total = static_cast<std::size_t>(p.total_heads);
  for (std::size_t t = 0; t < static_cast<std::size_t>(total_q_tokens(p)); ++t) {
    const std::size_t at = (t * total + static_cast<std::size_t>(rank) * h) * width;
    std::copy_n(from.begin() + static_cast<std::ptrdiff_t>(t * h * width), h * width,
                to.begin() + static_cast<std::ptrdiff_t>(at));
  }
}

}  // namespace

MlaDecodeInputs rank_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& model, int rank) {
  MlaDecodeInputs in;
  in.kv_cache = model.kv_cache;
  in.block_table = model.block_table;
  in.block_table_stride = model.block_table_stride;
  const auto row = static_cast<std::size_t>(heads(p)) * static_cast<std::size_t>(lk(p));
  const auto model_row = static_cast<std::size_t>(p.total_heads) * static_cast<std::size_t>(lk(p));
  const std::size_t offset = static_cast<std::size_t>(rank) * row;
  for (std::size_t t = 0; t < static_cast<std::size_t>(total_q_tokens(p)); ++t) {
    const auto first = model.q.begin() + static_cast<std::ptrdiff_t>(t * model_row + offset);
    in.q.insert(in.q.end(), first, first + static_cast<std::ptrdiff_t>(row));
  }
  return in;
}

std::vector<MlaDecodeRun> run_ranks(const MlaDecodeProblem& p, const MlaDecodeInputs& model,
                                    std::span<Backend* const> devices) {
  std::vector<MlaDecodeRun> runs(static_cast<std::size_t>(p.tp));
  const auto run_device_ranks = [&p, &model, &runs, devices](std::size_t device) {
    for (std::size_t rank = device; rank < runs.size(); rank += devices.size()) {
      const auto r = static_cast<int>(rank);
      runs[rank] = devices[device]->run(rank_of(p, r), rank_inputs(p, model, r), {});
    }
  };
  if (devices.size() == 1) {
    run_device_ranks(0);
    return runs;
  }
  std::vector<std::future<void>> workers;
  for (std::size_t device = 0; device < devices.size(); ++device) {
    workers.push_back(std::async(std::launch::async, run_device_ranks, device));
  }
  for (std::future<void>& w : workers) w.get();  // every worker is joined before an exception leaves
  return runs;
}

JoinedRanks join_ranks(const MlaDecodeProblem& p, std::span<const MlaDecodeRun> ranks) {
  const auto tokens = static_cast<std::size_t>(total_q_tokens(p));
  const auto total = static_cast<std::size_t>(p.total_heads);
  const auto lv = static_cast<std::size_t>(p.kv_lora_rank);
  JoinedRanks j;
  j.out.o.resize(tokens * total * lv);
  j.out.lse.resize(tokens * total);
  j.o_unwritten.resize(j.out.o.size());
  j.lse_unwritten.resize(j.out.lse.size());
  if (ranks.size() != static_cast<std::size_t>(p.tp)) throw std::invalid_argument("join_ranks: one run per rank");
  for (int rank = 0; rank < p.tp; ++rank) {
    const MlaDecodeRun& run = ranks[static_cast<std::size_t>(rank)];
    if (run.out.o.size() != tokens * lv * static_cast<std::size_t>(heads(p)) ||
        run.out.lse.size() != tokens * static_cast<std::size_t>(heads(p)) ||
        run.o_unwritten.size() != run.out.o.size() || run.lse_unwritten.size() != run.out.lse.size()) {
      throw std::invalid_argument("join_ranks: rank " + std::to_string(rank) + "'s outputs do not have its shape");
    }
    place_rank(p, rank, lv, run.out.o, j.out.o);
    place_rank(p, rank, 1, run.out.lse, j.out.lse);
    place_rank(p, rank, lv, run.o_unwritten, j.o_unwritten);
    place_rank(p, rank, 1, run.lse_unwritten, j.lse_unwritten);
  }
  return j;
}

}  // namespace mlacheck
