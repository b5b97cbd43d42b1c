#include "reference/coherent_bucket_sums.hpp"

#include <algorithm>

namespace mlacheck {

void BlockBuckets::clear() {
  buckets_.clear();
  tokens_.clear();
  weights_.clear();
}

void BlockBuckets::open(int kind) {
  Bucket b;
  b.kind = kind;
  b.begin = b.end = static_cast<std::uint32_t>(tokens_.size());
  buckets_.push_back(b);
}

void BlockBuckets::add(std::uint32_t token, double p, double w, bool top) {
  Bucket& b = buckets_.back();
  b.independent += w;
  if (top) {
    b.top = token;
    b.p_top = p;
    return;
  }
  b.independent_below += w;
  tokens_.push_back(token);
  weights_.push_back(p);
  b.end = static_cast<std::uint32_t>(tokens_.size());
}

void BlockBuckets::measure_coherent(const ValueChunks& v) {
  using Chunk = Eigen::Array<double, ValueChunks::kWidth, 1>;
  using ChunkMap = Eigen::Map<const Chunk>;
  // A bucket of one token is its own independent term: only larger ones need the vector sum.
  multi_.clear();
  for (std::size_t i = 0; i < buckets_.size(); ++i) {
    if (buckets_[i].size() > 1) multi_.push_back(static_cast<std::uint32_t>(i));
  }
  for (int c = 0; c < v.chunks; ++c) {
    for (std::uint32_t index : multi_) {
      Bucket& b = buckets_[index];
      Chunk sum = Chunk::Zero();
      for (std::uint32_t i = b.begin; i < b.end; ++i) sum += weights_[i] * ChunkMap(v.at(c, tokens_[i]));
      b.coherent_below += sum.square().sum();
      if (b.top >= 0) {
        sum += b.p_top * ChunkMap(v.at(c, b.top));
        b.coherent += sum.square().sum();
      }
    }
  }
  for (std::uint32_t index : multi_) {
    Bucket& b = buckets_[index];
    if (b.top < 0) b.coherent = b.coherent_below;
  }
}

void BlockBuckets::add_terms(MlaErrorScales& sc) const {
  for (const Bucket& b : buckets_) {
    const double w = std::max(b.coherent, b.independent);
    const double w_below = std::max(b.coherent_below, b.independent_below);
    MlaErrorScales::PWeights& out = sc.p_bucketed[b.kind];
    out.all += w;
    out.all_sq += w * w;
    out.below_max += w_below;
    out.below_max_sq += w_below * w_below;
  }
}

}  // namespace mlacheck
