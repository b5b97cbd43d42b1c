#include "core/fill_profile.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/fill.hpp"

namespace mlacheck {

namespace {

// The largest dequantised latent any profile writes: below f16's largest finite value (65504), so
// an f16 O holds every mixture of values and a correct kernel never overflows its output.
constexpr double kLatentCap = 57344.0;
// Share of fp8's largest finite code the latents reach: the headroom a quantiser leaves.
constexpr double kFp8Headroom = 0.9;
// sink: the score offset of a row at lambda = 1, and lambda's range (log2).
constexpr double kSinkOffset = 256.0;
constexpr double kSinkLog2LambdaMin = -6.0, kSinkLog2LambdaMax = 1.0;
// extreme: the huge tokens' score spread at lambda = 1, and lambda's range (log2).
constexpr double kExtremeSpread = 8.0;
constexpr double kExtremeLog2LambdaMin = -4.0, kExtremeLog2LambdaMax = 2.0;
constexpr double kTinyValue16 = 0x1p-18;  // f16 subnormal (below 2^-14); a small bf16 normal

// Uniform in [0, 1) from (seed, what, index): the per-row and per-token factors.
double unit_hash(std::uint64_t seed, std::string_view what, std::uint64_t index) {
  SplitMix64 rng(tensor_seed(seed, what, index));
  return (static_cast<double>(rng.uniform_pm1()) + 1.0) / 2.0;
}

double log_uniform(std::uint64_t seed, std::string_view what, std::uint64_t index, double lo, double hi) {
  return std::exp2(lo + (hi - lo) * unit_hash(seed, what, index));
}

// The channels that carry the sink profile's structure: the rope channels, or the last 16 when
// there are fewer (then they are value channels too).
int structured_channels(const MlaDecodeProblem& p) { return std::min(lk(p), std::max(p.rope_dim, 16)); }

// +-1 per structured channel, one fixed pattern per seed, shared by q and the cache.
float sign_of(const MlaDecodeProblem& p, int channel) {
  return unit_hash(p.seed, "sink_sign", static_cast<std::uint64_t>(channel)) < 0.5 ? -1.0f : 1.0f;
}

// The largest dequantised value the cache may hold: fp8 codes up to 0.9 of the dtype's range, the
// value capped; 16-bit caches at the cap.
double latent_amplitude(const MlaDecodeProblem& p) {
  if (!is_fp8(p.kv_dtype)) return kLatentCap;
  return std::min(kFp8Headroom * max_finite(p.kv_dtype) * p.kv_scale, kLatentCap);
}

// sink: q's and the latents' structured amplitudes (balanced so that neither dtype is pushed to its
// limits) whose product gives the offset at lambda = 1, and the factor f that sizes the latents to
// the cache (q is divided by it, so scores do not change).
struct SinkShape {
  double a = 0.0, b = 0.0, f = 1.0;
};

// The sink's structured amplitude is b*9/8: its margin over the other keys is an eighth of the
// row's offset (32*lambda), a ratio that fp8's three mantissa bits still resolve.
constexpr double kSinkFactor = 9.0 / 8.0;

SinkShape sink_shape(const MlaDecodeProblem& p) {
  SinkShape s;
  s.a = s.b = std::sqrt(kSinkOffset / (p.scale * structured_channels(p)));
  const double largest = kSinkFactor * s.b + 1.0;  // the sink's structure plus noise
  s.f = is_fp8(p.kv_dtype) ? latent_amplitude(p) / largest : std::min(1.0, latent_amplitude(p) / largest);
  return s;
}

enum class TokenKind { tiny, unit, huge };

TokenKind token_kind(const MlaDecodeProblem& p, std::size_t token) {
  const double h = unit_hash(p.seed, "extreme_kind", token);
  return h < 0.25 ? TokenKind::tiny : h < 0.75 ? TokenKind::unit : TokenKind::huge;
}

// extreme: the amplitude of a token's codes (fp8) or values (16-bit caches, kv_scale 1).
double extreme_code_amplitude(const MlaDecodeProblem& p, TokenKind kind) {
  const bool fp8 = is_fp8(p.kv_dtype);
  switch (kind) {
    case TokenKind::huge:
      return latent_amplitude(p) / p.kv_scale;
    case TokenKind::unit:
      return 1.0;
    case TokenKind::tiny:
      // Inside the subnormal range: fp8 e4m3fn's normals start at 2^-6, fnuz's at 2^-7.
      return fp8 ? 0x1p-7 : kTinyValue16;
  }
  return 1.0;
}

// Both shapes size q inversely to the latents and to the softmax scale, so a tiny scale (the
// generators draw 1e-6) or a small fp8 kv_scale asks for q past what an f16 q holds: inf there,
// NaN in every output. Such a row is divided by the power of two that brings it within half of
// q_dtype's largest finite value: its scores shrink by that factor (flatter, still shaped), the
// value stays exact in binary, and it depends on the row alone, so ranks and layouts keep their q.
void fit_q_dtype(DType q_dtype, std::span<float> row) {
  const double cap = 0.5 * max_finite(q_dtype);
  double largest = 0.0;
  for (float v : row) largest = std::max(largest, std::fabs(double(v)));
  if (largest <= cap) return;
  const double down = std::exp2(std::ceil(std::log2(largest / cap)));
  for (float& v : row) v = static_cast<float>(double(v) / down);
}

}  // namespace

void shape_q_row(const MlaDecodeProblem& p, std::size_t model_row, std::span<float> row) {
  const int width = lk(p);
  switch (p.profile) {
    case FillProfile::uniform:
      throw std::logic_error("shape_q_row: the uniform profile is not shaped");
    case FillProfile::sink: {
      const double lambda = log_uniform(p.seed, "q_lambda", model_row, kSinkLog2LambdaMin, kSinkLog2LambdaMax);
      const SinkShape s = sink_shape(p);
      const int first = width - structured_channels(p);
      for (int c = 0; c < width; ++c) {
        const double structure = c >= first ? s.a * sign_of(p, c - first) : 0.0;
        row[static_cast<std::size_t>(c)] =
            static_cast<float>(lambda * (row[static_cast<std::size_t>(c)] + structure) / s.f);
      }
      break;
    }
    case FillProfile::extreme: {
      const double lambda = log_uniform(p.seed, "q_lambda", model_row, kExtremeLog2LambdaMin, kExtremeLog2LambdaMax);
      // Score spread of the huge tokens: scale * |q| * huge * sqrt(Lk)/3 for uniform noise.
      const double amplitude = kExtremeSpread * 3.0 / (p.scale * latent_amplitude(p) * std::sqrt(double(width)));
      for (float& v : row) v = static_cast<float>(lambda * amplitude * v);
      break;
    }
  }
  // fp8 queries hold codes of q = q_scale * code (a q_scale of 1 divides exactly).
  for (float& v : row) v = static_cast<float>(double(v) / p.q_scale);
  fit_q_dtype(p.q_dtype, row);
  for (float& v : row) v = round_to(p.q_dtype, v);
}

void shape_latent(const MlaDecodeProblem& p, std::size_t token, int pos, std::span<float> latent) {
  const int width = lk(p);
  switch (p.profile) {
    case FillProfile::uniform:
      throw std::logic_error("shape_latent: the uniform profile is not shaped");
    case FillProfile::sink: {
      const SinkShape s = sink_shape(p);
      const double b = pos == 0 ? kSinkFactor * s.b : s.b;
      const int first = width - structured_channels(p);
      for (int c = 0; c < width; ++c) {
        const double structure = c >= first ? b * sign_of(p, c - first) : 0.0;
        const double value = s.f * (latent[static_cast<std::size_t>(c)] + structure);
        latent[static_cast<std::size_t>(c)] = static_cast<float>(value / p.kv_scale);
      }
      break;
    }
    case FillProfile::extreme: {
      const double amplitude = extreme_code_amplitude(p, token_kind(p, token));
      for (float& v : latent) v = static_cast<float>(amplitude * v);
      break;
    }
  }
  for (float& v : latent) v = round_to(p.kv_dtype, v);
}

}  // namespace mlacheck
