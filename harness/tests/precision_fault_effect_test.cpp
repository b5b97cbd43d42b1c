// Every precision fault (device/faults.hpp, kPrecisionFaults) must change what the kernels write
// for a default-sweep case, on both decode paths: a fault that leaves the output bit-identical
// switches nothing on, and the sensitivity matrix would credit the harness with catching a no-op.
// Without a GPU the tests report SKIPPED with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "device/backend.hpp"
#include "device/faults.hpp"
#include "plan/default_sweep.hpp"

namespace mlacheck {
namespace {

BackendOrReason& precision_backend() {
  static BackendOrReason backend = make_hip_backend(0);
  return backend;
}

MlaDecodeProblem sweep_case(const std::string& name) {
  for (const MlaDecodeProblem& p : default_mla_sweep(1)) {
    if (p.name == name) return p;
  }
  throw std::logic_error("no default-sweep case " + name);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

class PrecisionFaultEffect : public ::testing::TestWithParam<Fault> {};

// DeepSeek-V3 decode (one rank of 128 heads; requests of 4097, 1000, 17 and 1 tokens): many KV
// tiles per row, split partials on both paths, a scale that bf16 does not hold exactly.
TEST_P(PrecisionFaultEffect, ChangesTheOutputOnBothPaths) {
  Backend* backend = precision_backend().backend.get();
  if (backend == nullptr) GTEST_SKIP() << precision_backend().reason;
  for (const char* name : {"dsv3.decode.0.split_kv", "dsv3.decode.1.persistent"}) {
    const MlaDecodeProblem p = sweep_case(name);
    const MlaDecodeInputs in = make_inputs(p);
    const MlaDecodeRun clean = backend->run(p, in, {});
    const MlaDecodeRun faulty = backend->run(p, in, {GetParam()});
    EXPECT_FALSE(same_bits(clean.out.o, faulty.out.o) && same_bits(clean.out.lse, faulty.out.lse))
        << to_string(GetParam()) << " left O and LSE bit-identical on " << name << "\n  repro: " << to_repro(p);
  }
}

INSTANTIATE_TEST_SUITE_P(All, PrecisionFaultEffect, ::testing::ValuesIn(kPrecisionFaults), [](const auto& param_info) {
  std::string name(to_string(param_info.param));
  for (char& c : name) c = c == '-' ? '_' : c;
  return name;
});

}  // namespace
}  // namespace mlacheck
