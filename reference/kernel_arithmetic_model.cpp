#include "reference/kernel_arithmetic_model.hpp"

// Built with -ffp-contract=off (reference/CMakeLists.txt): whether a multiply and an add fuse is
// the `fma` knob's choice, never the compiler's.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/code_scales.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

namespace {

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr float kMinusInf = -std::numeric_limits<float>::infinity();
constexpr int kSplitGranule = 16;  // split boundaries, as the device plans cut them

// A value held in `t` (f32: unchanged).
float held(DType t, float v) { return t == DType::f32 ? v : round_to(t, v); }

class Arithmetic {
 public:
  explicit Arithmetic(const KernelVariation& v) : v_(v) {}

  float exp2(float x) const { return approximate(std::exp2(x), x); }
  float log2(float x) const { return approximate(std::log2(x), x); }
  float exp(float x) const { return approximate(std::exp(x), x); }
  float log(float x) const { return approximate(std::log(x), x); }
  float madd(float a, float b, float c) const { return v_.fma ? std::fma(a, b, c) : a * b + c; }

  // sum_i x[i] * y[i] in fp32, in the variation's order (products of the kernels' input types are
  // exact in fp32, so only the additions round).
  float dot(std::span<const float> x, std::span<const float> y) const {
    const std::size_t n = x.size();
    switch (v_.order) {
      case AccumulationOrder::sequential: {
        float s = 0.0f;
        for (std::size_t i = 0; i < n; ++i) s = madd(x[i], y[i], s);
        return s;
      }
      case AccumulationOrder::reversed: {
        float s = 0.0f;
        for (std::size_t i = n; i-- > 0;) s = madd(x[i], y[i], s);
        return s;
      }
      case AccumulationOrder::blocked: {
        std::vector<float> blocks;
        for (std::size_t b = 0; b < n; b += 16) {
          float s = 0.0f;
          for (std::size_t i = b; i < std::min(n, b + 16); ++i) s = madd(x[i], y[i], s);
          blocks.push_back(s);
        }
        return pairwise(blocks);
      }
    }
    return 0.0f;
  }

  // sum of values in the variation's order.
  float sum(std::vector<float> values) const {
    if (v_.order == AccumulationOrder::reversed) std::reverse(values.begin(), values.end());
    if (v_.order == AccumulationOrder::blocked) return pairwise(values);
    float s = 0.0f;
    for (float x : values) s += x;
    return s;
  }

 private:
  static float pairwise(std::vector<float> v) {
    if (v.empty()) return 0.0f;
    while (v.size() > 1) {
      std::vector<float> next;
      for (std::size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(v[i] + v[i + 1]);
      if (v.size() % 2 == 1) next.push_back(v.back());
      v.swap(next);
    }
    return v[0];
  }

  // The exact result moved by a pseudo-random number of ulps in [-k, k], a function of the input
  // only (as a hardware approximation is).
  float approximate(double exact, float input) const {
    auto r = static_cast<float>(exact);
    // Exact at 0 (exp2(0) = 1, log2(1) = 0), as hardware approximations are: a rescale by an
    // unchanged max stays exact.
    if (v_.exp2_error_ulps == 0 || !std::isfinite(r) || r == 0.0f || input == 0.0f || input == 1.0f) return r;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &input, sizeof bits);
    std::uint64_t h = (bits + 0x9E3779B97F4A7C15ull) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
    const int span = 2 * v_.exp2_error_ulps + 1;
    const int steps = static_cast<int>(h % static_cast<std::uint64_t>(span)) - v_.exp2_error_ulps;
    for (int i = 0; i < std::abs(steps); ++i) {
      r = std::nextafter(r, steps > 0 ? std::numeric_limits<float>::infinity() : 0.0f);
    }
    return r;
  }

  KernelVariation v_;
};

// One split's result: normalised O (times kv_scale) and LSE (natural log), as stage 1 writes them.
struct Partial {
  std::vector<float> o;
  float lse = kMinusInf;
};

struct RowContext {
  const MlaDecodeProblem& p;
  const KernelModelConfig& config;
  const ResolvedPRounding& p_round;
  const Arithmetic& arith;
  std::span<const float> q;               // Lk values
  const std::vector<const float*>& keys;  // the request's latents (codes), Lk values each
  float score_scale;                      // in log2 units, as held
};

// Keys [begin, end) of a row with an online softmax over tiles; `dropped` is the key left out of
// the normaliser (-1: none).
Partial attend(const RowContext& c, int begin, int end, int dropped) {
  const int lv = c.p.kv_lora_rank;
  const int width = lk(c.p);
  const IntermediatePrecision& prec = c.config.precision;
  const Arithmetic& a = c.arith;
  float m = kMinusInf;  // as held between tiles
  float l = 0.0f;
  std::vector<float> acc(static_cast<std::size_t>(lv), 0.0f);
  std::vector<float> s, pv_hi, pv_lo;
  for (int t0 = begin; t0 < end; t0 += c.config.variation.tile_tokens) {
    const int t1 = std::min(end, t0 + c.config.variation.tile_tokens);
    s.clear();
    float tile_max = kMinusInf;
    for (int j = t0; j < t1; ++j) {
      const float dot =
          a.dot(c.q, std::span<const float>(c.keys[static_cast<std::size_t>(j)], static_cast<std::size_t>(width)));
      s.push_back(dot * c.score_scale);
      tile_max = std::max(tile_max, s.back());
    }
    const float m_new = std::max(m, tile_max);
    const float alpha = m == kMinusInf ? 0.0f : a.exp2(m - m_new);
    std::vector<float> e;
    pv_hi.clear();
    pv_lo.clear();
    for (int j = t0; j < t1; ++j) {
      const float pj = a.exp2(s[static_cast<std::size_t>(j - t0)] - m_new);
      if (j != dropped) e.push_back(pj);
      if (!c.p_round.rounded) {
        pv_hi.push_back(pj);
      } else {
        const float hi = round_to(c.p_round.dtype, pj);
        pv_hi.push_back(hi);
        if (c.p_round.split) pv_lo.push_back(round_to(c.p_round.dtype, pj - hi));
      }
    }
    l = held(prec.row_sum, a.madd(l, alpha, a.sum(e)));
    for (int col = 0; col < lv; ++col) {
      std::vector<float> terms;
      float tile = 0.0f;
      const auto add = [&](const std::vector<float>& pv) {
        for (int j = t0; j < t1; ++j) {
          const float v = c.keys[static_cast<std::size_t>(j)][col];
          const float w = pv[static_cast<std::size_t>(j - t0)];
          if (c.config.variation.order == AccumulationOrder::sequential) {
            tile = a.madd(w, v, tile);
          } else {
            terms.push_back(w * v);
          }
        }
      };
      add(pv_hi);
      if (!pv_lo.empty()) add(pv_lo);
      if (c.config.variation.order != AccumulationOrder::sequential) tile = a.sum(terms);
      auto& o = acc[static_cast<std::size_t>(col)];
      o = held(prec.running_o, a.madd(o, alpha, tile));
    }
    m = held(prec.row_max, m_new);
  }
  Partial out;
  out.o.resize(static_cast<std::size_t>(lv));
  const float factor = l == 0.0f ? 0.0f : c.p.kv_scale / l;
  for (int col = 0; col < lv; ++col) out.o[static_cast<std::size_t>(col)] = acc[static_cast<std::size_t>(col)] * factor;
  out.lse = l == 0.0f ? kMinusInf : held(prec.lse, (m + a.log2(l)) * kLn2);
  return out;
}

// The LSE merge of lse_merge.hpp.
Partial merge(const std::vector<Partial>& parts, const KernelModelConfig& config, const Arithmetic& a, int lv) {
  float top = kMinusInf;
  for (const Partial& part : parts) top = std::max(top, part.lse);
  std::vector<float> w;
  for (const Partial& part : parts) w.push_back(part.lse == kMinusInf ? 0.0f : a.exp(part.lse - top));
  const float w_sum = a.sum(w);
  Partial out;
  out.o.assign(static_cast<std::size_t>(lv), 0.0f);
  for (int col = 0; col < lv; ++col) {
    float acc = 0.0f;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const float o = held(config.precision.partial_o, parts[i].o[static_cast<std::size_t>(col)]);
      acc = a.madd(w[i], o, acc);
    }
    out.o[static_cast<std::size_t>(col)] = acc / w_sum;
  }
  out.lse = held(config.precision.lse, top + a.log(w_sum));
  return out;
}

}  // namespace

MlaDecodeOutputs<float> kernel_arithmetic_model(const MlaDecodeProblem& problem, const MlaDecodeInputs& in,
                                                const KernelModelConfig& config) {
  const MlaDecodeProblem p = with_defaults(problem);
  check_mla_inputs(p, in);
  if (config.variation.tile_tokens < 1 || config.variation.splits < 1) {
    throw std::invalid_argument("kernel_arithmetic_model: tile_tokens " + std::to_string(config.variation.tile_tokens) +
                                " and splits " + std::to_string(config.variation.splits) + " must be at least 1");
  }
  const PageIndices pages = expand_page_indices(p, in);
  const ResolvedPRounding p_round = resolve_p_rounding(p, config.p_rounding);
  const Arithmetic arith(config.variation);
  const int h = heads(p);
  const int width = lk(p);
  const int lv = p.kv_lora_rank;
  const std::vector<int> qo = qo_indptr(p);
  // The kernels' float score scale (core/code_scales.hpp), then log2(e) as they take it.
  const float score_scale = held(config.precision.softmax_scale,
                                 code_score_scale({static_cast<float>(p.scale), p.kv_scale, p.q_scale}) * kLog2e);

  MlaDecodeOutputs<float> out;
  out.o.resize(static_cast<std::size_t>(qo.back()) * static_cast<std::size_t>(h) * static_cast<std::size_t>(lv));
  out.lse.resize(static_cast<std::size_t>(qo.back()) * static_cast<std::size_t>(h));
  for (int b = 0; b < batch(p); ++b) {
    const int kv = p.kv_lens[static_cast<std::size_t>(b)];
    const int q_len = p.q_lens[static_cast<std::size_t>(b)];
    std::vector<const float*> keys;
    for (int pos = 0; pos < kv; ++pos) {
      // The host holds pool blocks [first_block, num_blocks) only (core/mla_inputs.hpp).
      const std::int32_t slot = pages.kv_indices[static_cast<std::size_t>(pages.kv_indptr[b] + pos)];
      keys.push_back(in.kv_cache.data() + host_cache_index(p, slot));
    }
    for (int t = 0; t < q_len; ++t) {
      const int visible = kv - q_len + t + 1;
      for (int head = 0; head < h; ++head) {
        const std::size_t row =
            (static_cast<std::size_t>(qo[b] + t)) * static_cast<std::size_t>(h) + static_cast<std::size_t>(head);
        const RowContext c{p,
                           config,
                           p_round,
                           arith,
                           std::span<const float>(in.q.data() + row * static_cast<std::size_t>(width),
                                                  static_cast<std::size_t>(width)),
                           keys,
                           score_scale};
        const int dropped = config.precision.drop_one_key_from_normaliser ? visible - 1 : -1;
        // Splits on 16-token boundaries, as even as the granule allows; empty ones are skipped.
        const int granules = (visible + kSplitGranule - 1) / kSplitGranule;
        std::vector<Partial> parts;
        for (int sp = 0; visible > 0 && sp < config.variation.splits; ++sp) {
          const int begin = std::min(visible, granules * sp / config.variation.splits * kSplitGranule);
          const int end = std::min(visible, granules * (sp + 1) / config.variation.splits * kSplitGranule);
          if (begin < end) parts.push_back(attend(c, begin, end, dropped));
        }
        // A row that sees no token (every row of a padded request, kv_len 0) has no part: the
        // identity the kernels write, O 0 and LSE -inf, not a merge of nothing (0 / 0).
        Partial result{std::vector<float>(static_cast<std::size_t>(lv), 0.0f), kMinusInf};
        if (parts.size() == 1) {
          result = parts[0];
        } else if (!parts.empty()) {
          result = merge(parts, config, arith, lv);
        }
        for (int col = 0; col < lv; ++col) {
          out.o[row * static_cast<std::size_t>(lv) + static_cast<std::size_t>(col)] =
              round_to(p.o_dtype, result.o[static_cast<std::size_t>(col)]);
        }
        out.lse[row] = result.lse;
      }
    }
  }
  return out;
}

}  // namespace mlacheck
