#include "reference/mla_decode_plain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.hpp"

namespace mlacheck {

MlaDecodeOutputs<double> mla_decode_plain(const MlaDecodeProblem& p, const MlaDecodeInputs& in, PRoundingPoint rounding) {
  check_mla_inputs(p, in);
  const std::optional<DType> p_dtype = oracle_p_dtype(p, rounding);
  const int h = heads(p);
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const int bs = p.block_size;
  const auto uz = [](int v) { return static_cast<std::size_t>(v); };

  MlaDecodeOutputs<double> out;
  out.o.resize(uz(total_q_tokens(p)) * uz(h) * uz(lv));
  out.lse.resize(uz(total_q_tokens(p)) * uz(h));

  int token = 0;  // query token index over the whole batch
  for (int b = 0; b < batch(p); ++b) {
    const int kv = p.kv_lens[b];
    const int q_len = p.q_lens[b];
    // Where each cached token of this request lives, read from the block table.
    std::vector<const float*> latent(uz(kv));
    for (int pos = 0; pos < kv; ++pos) {
      const std::size_t entry = uz(b) * uz(in.block_table_stride) + uz(pos / bs);
      if (pos / bs >= in.block_table_stride || entry >= in.block_table.size()) {
        throw std::invalid_argument("mla_decode_plain: block table too small for request " + std::to_string(b));
      }
      const std::int32_t block = in.block_table[entry];
      if (block < 0 || block >= p.num_blocks) {
        throw std::invalid_argument("mla_decode_plain: block id " + std::to_string(block) + " out of range");
      }
      latent[uz(pos)] = &in.kv_cache[host_cache_index(p, std::int64_t{block} * bs + pos % bs)];
    }
    for (int t = 0; t < q_len; ++t, ++token) {
      const int visible = visible_kv(p, b, t);  // causal, aligned bottom-right
      for (int head = 0; head < h; ++head) {
        if (visible == 0) {  // an empty row (a padded request): O 0, LSE -inf
          std::fill_n(out.o.begin() + static_cast<std::ptrdiff_t>((uz(token) * uz(h) + uz(head)) * uz(lv)), lv, 0.0);
          out.lse[uz(token) * uz(h) + uz(head)] = -std::numeric_limits<double>::infinity();
          continue;
        }
        const float* q = &in.q[(uz(token) * uz(h) + uz(head)) * uz(width)];
        std::vector<long double> score(uz(visible));
        long double max_score = -std::numeric_limits<long double>::infinity();
        for (int pos = 0; pos < visible; ++pos) {
          long double dot = 0;
          for (int c = 0; c < width; ++c) {
            dot += static_cast<long double>(q[c]) * p.q_scale *
                   (static_cast<long double>(latent[uz(pos)][c]) * p.kv_scale);
          }
          score[uz(pos)] = dot * p.scale;
          max_score = std::max(max_score, score[uz(pos)]);
        }
        long double sum = 0;
        std::vector<long double> weight(uz(visible));
        for (int pos = 0; pos < visible; ++pos) {
          const long double e = std::exp(score[uz(pos)] - max_score);
          sum += e;
          weight[uz(pos)] = p_dtype ? round_to(*p_dtype, static_cast<float>(e)) : e;
        }
        for (int c = 0; c < lv; ++c) {
          long double acc = 0;
          for (int pos = 0; pos < visible; ++pos) {
            acc += weight[uz(pos)] * (static_cast<long double>(latent[uz(pos)][c]) * p.kv_scale);
          }
          out.o[(uz(token) * uz(h) + uz(head)) * uz(lv) + uz(c)] = static_cast<double>(acc / sum);
        }
        out.lse[uz(token) * uz(h) + uz(head)] = static_cast<double>(max_score + std::log(sum));
      }
    }
  }
  return out;
}

}  // namespace mlacheck
