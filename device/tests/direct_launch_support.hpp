#pragma once
// What the tests that launch the attention kernels directly (split-KV: device/kernels/tests,
// persistent: device/persistent/tests) share around a launch: q and the cache uploaded as storage
// codes, the buffers a launch writes poisoned before it, O and LSE read back and un-padded after
// it, and the check of what was read back against the oracle. Test-only, header-only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/compare.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/poison_codes.hpp"
#include "core/tolerance.hpp"
#include "device/platform/canary_report.hpp"
#include "device/platform/device_buffer.hpp"
#include "device/platform/poison.hpp"
#include "reference/head_padding.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck::kernels {

template <class Code>
DeviceBuffer upload_codes(const std::string& name, DType t, std::span<const float> values) {
  std::vector<Code> codes(values.size());
  std::transform(values.begin(), values.end(), codes.begin(), [t](float v) { return static_cast<Code>(encode(t, v)); });
  return DeviceBuffer::from_host(name, std::span(codes));
}

// Values of dtype t, encoded bit-exactly into its storage codes.
inline DeviceBuffer upload_encoded(const std::string& name, DType t, std::span<const float> values) {
  return storage_bytes(t) == 2 ? upload_codes<std::uint16_t>(name, t, values)
                               : upload_codes<std::uint8_t>(name, t, values);
}

// The buffers a launch writes: the float partials, O [rows, Lv] in o_dtype and LSE [rows] for
// `rows` padded query rows, each poisoned so that whatever the launch leaves unwritten (or reads
// before writing) shows.
struct LaunchOutputBuffers {
  LaunchOutputBuffers(std::size_t partial_o_floats, std::size_t partial_lse_floats, std::size_t rows, int lv,
                      DType o_dtype)
      : partial_o("partial_o", partial_o_floats * sizeof(float)),
        partial_lse("partial_lse", partial_lse_floats * sizeof(float)),
        o("o_padded", rows * std::size_t(lv) * storage_bytes(o_dtype)),
        lse("lse_padded", rows * sizeof(float)) {
    partial_o.poison(kPoisonF32);
    partial_lse.poison(kPoisonF32);
    o.poison(poison16(o_dtype));
    lse.poison(kPoisonF32);
  }
  // Points a launch's output arguments (SplitKvArgs and PersistentArgs name the same four) here.
  template <class LaunchArgs>
  void bind(LaunchArgs& args) {
    args.partial_o = partial_o.as<float>();
    args.partial_lse = partial_lse.as<float>();
    args.o = o.data();
    args.lse = lse.as<float>();
  }
  DeviceBuffer partial_o;
  DeviceBuffer partial_lse;
  DeviceBuffer o;
  DeviceBuffer lse;
};

// What a launch wrote, read back.
struct LaunchOutputs {
  std::vector<float> o;    // [tokens, heads, Lv], un-padded, decoded from o_dtype
  std::vector<float> lse;  // [tokens, heads]
  std::size_t o_unwritten = 0;
  std::size_t lse_unwritten = 0;
  CanaryReport canaries;  // every buffer of the launch
};

// O and LSE of `out` decoded and un-padded, with the elements the launch left poisoned counted;
// `canaries` is the launch's own report, over every buffer it was given.
inline LaunchOutputs read_launch_outputs(const MlaDecodeProblem& p, const LaunchOutputBuffers& out,
                                         CanaryReport canaries) {
  const std::vector<std::uint16_t> o_codes = out.o.download<std::uint16_t>();
  const std::vector<float> lse_padded = out.lse.download<float>();
  LaunchOutputs got;
  got.canaries = std::move(canaries);
  got.o_unwritten = count_poisoned(std::span<const std::uint16_t>(o_codes), poison16(p.o_dtype));
  got.lse_unwritten = count_poisoned(std::span<const float>(lse_padded), kPoisonF32);
  std::vector<float> o_padded(o_codes.size());
  std::transform(o_codes.begin(), o_codes.end(), o_padded.begin(),
                 [&](std::uint16_t c) { return decode(p.o_dtype, c); });
  got.o = unpad_heads<float>(p, o_padded, p.kv_lora_rank);
  got.lse = unpad_heads<float>(p, lse_padded, 1);
  return got;
}

inline double max_abs_finite(std::span<const float> v, double scale) {
  double m = 0.0;
  for (float x : v) {
    if (std::isfinite(x)) m = std::max(m, std::abs(double(x)) * scale);
  }
  return m;
}

// `got`, the outputs of p on `in`, within the oracle's tolerance, every element written and every
// canary intact.
inline void expect_launch_matches_oracle(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                         const LaunchOutputs& got) {
  const MlaDecodeOutputs<double> want = mla_decode_reference(p, in);
  // The kernels round P to q's dtype before P.V on the matrix cores (or keep it finer: a high and a
  // low part when the cache is the other 16-bit type).
  const MlaTolerances tol =
      mla_decode_tolerance(p, max_abs_finite(in.q, 1.0), max_abs_finite(in.kv_cache, p.kv_scale), /*p_rounded=*/true);

  EXPECT_TRUE(got.canaries.intact()) << got.canaries.describe();
  EXPECT_EQ(got.o_unwritten, 0u);
  EXPECT_EQ(got.lse_unwritten, 0u);
  const CompareStats o = compare(want.o, got.o, tol.o);
  const CompareStats lse = compare(want.lse, got.lse, tol.lse);
  EXPECT_EQ(o.nonfinite, 0u);
  EXPECT_EQ(lse.nonfinite, 0u);
  EXPECT_TRUE(within(o, tol.o)) << "O: " << o.mismatches << "/" << o.total << " mismatches, max abs err "
                                << o.max_abs_err << " at " << o.worst_index << ", rms " << o.rms_rel_err << "; "
                                << tol.o.rule;
  EXPECT_TRUE(within(lse, tol.lse)) << "LSE: " << lse.mismatches << "/" << lse.total << " mismatches, max abs err "
                                    << lse.max_abs_err << " at " << lse.worst_index << "; " << tol.lse.rule;
}

}  // namespace mlacheck::kernels
