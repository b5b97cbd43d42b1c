#pragma once
// The coherent term of the P rounding statistics (MlaErrorScales::p_bucketed): for every rounding
// bucket G of more than one token, ||sum_G p_j v_j||^2, with and without the row's top token.
//
// Every row's buckets together read all of V, so bucket by bucket and row by row the values would
// be streamed from memory once per row and dtype. Instead the buckets of a block of rows are
// collected first, and V is walked once per block a few channels at a time (ValueChunks: the
// values of kWidth channels of every token, contiguous, small enough to stay in cache): each
// bucket's partial sum over those channels is formed in registers and its square added to the
// bucket's norm. Each channel's sum still runs over the bucket's tokens in token order, the top
// token last.
#include <Eigen/Core>
#include <cstdint>
#include <vector>

#include "core/tolerance.hpp"

namespace mlacheck {

// V (tokens x Lv) as chunks of kWidth channels: chunk c holds token j's channels
// [c kWidth, (c + 1) kWidth) at j kWidth, the last chunk padded with zeros (which add nothing).
// Sized once per request, then filled a range of tokens at a time (the oracle's key chunks).
struct ValueChunks {
  static constexpr int kWidth = 16;
  std::vector<double> values;
  Eigen::Index tokens = 0;
  int chunks = 0;
  int channels = 0;
  void resize(Eigen::Index token_count, int channel_count) {
    tokens = token_count;
    channels = channel_count;
    chunks = (channel_count + kWidth - 1) / kWidth;
    values.resize(static_cast<std::size_t>(tokens) * static_cast<std::size_t>(chunks) * kWidth);
  }
  // Tokens [first, first + v.rows()), every channel of them, the padding included.
  template <class Values>
  void assign_rows(const Values& v, Eigen::Index first) {
    for (Eigen::Index j = 0; j < v.rows(); ++j) {
      for (int c = 0; c < chunks * kWidth; ++c) {
        values[static_cast<std::size_t>(((c / kWidth) * tokens + first + j) * kWidth + c % kWidth)] =
            c < channels ? v(j, c) : 0.0;
      }
    }
  }
  const double* at(int chunk, Eigen::Index token) const {
    return values.data() +
           (static_cast<std::size_t>(chunk) * static_cast<std::size_t>(tokens) + static_cast<std::size_t>(token)) *
               kWidth;
  }
};

// The buckets of a block of rows, in the order their terms are added: row by row, each row's bf16
// buckets then its f16 buckets, each dtype's buckets in code order.
class BlockBuckets {
 public:
  void clear();
  // Opens a bucket of weights rounded to kind (MlaErrorScales::kPBucketBf16 or kPBucketF16).
  void open(int kind);
  // Adds a token to the open bucket; `top` marks the row's top token.
  void add(std::uint32_t token, double p, double w, bool top);
  // The coherent sums of every bucket of more than one token, over all channels of v.
  void measure_coherent(const ValueChunks& v);
  // Each bucket's term max(coherent, independent) into sc, in collection order.
  void add_terms(MlaErrorScales& sc) const;

 private:
  struct Bucket {
    int kind = 0;
    std::uint32_t begin = 0, end = 0;  // its tokens other than the top one, in entries
    std::int64_t top = -1;             // the row's top token when this bucket holds it
    double p_top = 0.0;
    double independent = 0.0, independent_below = 0.0;  // sums of p_j^2 ||v_j||^2
    double coherent = 0.0, coherent_below = 0.0;
    int size() const { return static_cast<int>(end - begin) + (top >= 0 ? 1 : 0); }
  };
  std::vector<Bucket> buckets_;
  std::vector<std::uint32_t> multi_;  // the buckets of more than one token
  std::vector<std::uint32_t> tokens_;
  std::vector<double> weights_;
};

}  // namespace mlacheck
