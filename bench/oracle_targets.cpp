#include "bench/oracle_targets.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <thread>

#include "core/mla_inputs.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {

namespace {

// The heaviest oracle cases of `mlacheck run`'s default plan (seed 1, 64 property cases): the
// property sweep's four and the DeepSeek-V3 MTP scenario, by the oracle time of a run on the CPU
// example plugin.
const char* const kHeaviestPlanCases[] = {
    "mla_decode:name=sweep-57;heads=128;tp=1;rank=0;lv=32;rope=64;scale=0.727734;kv=0,1025,0,2385,2049,513,2496,0,31,"
    "2049,2039,856,13,1025,97,1822,3506,3210,1353,506,7,2337,346,255,7,127;q=4*26;bs=1;blocks=28055;q_dtype=f16;"
    "kv_dtype=bf16;o_dtype=bf16;kv_scale=1;path=persistent;splits=29;fill=exact;seed=175830477833701639;"
    "profile=uniform",
    "mla_decode:name=sweep-62;heads=48;tp=2;rank=0;lv=512;rope=64;scale=0.597243;kv=3384,4733,257,5,4376,1025,4330,"
    "4755,1,3744,513,255,510,2809,901,2,3467,2036,2030,0,4093,0,4839,0,127,2039,509,0,127,61,35,7,31,1021,1,61,5222"
    ",4301,1300,1771,4806,0,3236,2173,5721,5308,13,1807,5367;q=1*49;bs=64;blocks=1475;q_dtype=bf16;kv_dtype=f16;o_d"
    "type=f16;kv_scale=1;path=auto;splits=0;fill=exact;seed=2167111691718237029;profile=uniform",
    "mla_decode:name=sweep-60;heads=18;tp=1;rank=0;lv=464;rope=0;scale=0.135234;kv=0,97,5327,127,0,81,0,6029,1025;q"
    "=5,3,6,1*2,7,3,6,3;bs=80;blocks=164;q_dtype=bf16;kv_dtype=fp8_e4m3fn;o_dtype=bf16;kv_scale=0.8671875;path=pers"
    "istent;splits=128;fill=random;seed=1341309673870327803;profile=uniform",
    "mla_decode:name=sweep-61;heads=128;tp=8;rank=2;lv=256;rope=64;scale=0.156664;kv=255,166,97,255,0,97,0,257,0,16"
    "54,0,2117,63,2000,127,2039,73,1775,0,135,257,513,31,1797,6,911,1676,127,1123,125,615,2039,937,0,2279,1548,505,"
    "140,6,509,97,13,0,61,2348,500,366,2039,65,61,509,255,364,1916,7;q=6*55;bs=64;blocks=568;q_dtype=f16;kv_dtype=f"
    "p8_e4m3fn;o_dtype=bf16;kv_scale=1.6149902;path=persistent;splits=22;fill=random;seed=614389829406030293;profil"
    "e=uniform",
    "mla_decode:name=scenario.r3_deepseek_v3_tp8_mtp3_verify;heads=128;tp=8;rank=0;lv=512;rope=64;scale=0.041666666"
    "666666664;kv=8192*2,6000,8192;q=4*4;bs=16;blocks=1911;q_dtype=bf16;kv_dtype=bf16;o_dtype=bf16;kv_scale=1;path="
    "persistent;splits=0;fill=random;seed=44;profile=uniform",
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using MatrixRM = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

}  // namespace

MlaDecodeProblem deepseek_v3_problem(int q_len, int requests, int total_heads) {
  MlaDecodeProblem p;
  p.name = "dsv3-q" + std::to_string(q_len);
  p.total_heads = total_heads;
  p.kv_lora_rank = 512;
  p.rope_dim = 64;
  p.kv_lens.assign(static_cast<std::size_t>(requests), 4096);
  p.q_lens.assign(static_cast<std::size_t>(requests), q_len);
  p.block_size = 64;
  return with_defaults(p);
}

std::vector<MlaDecodeProblem> oracle_target_problems(bool quick) {
  if (quick) {
    MlaDecodeProblem small = deepseek_v3_problem(1, 1, 16);
    small.kv_lens = {512};
    small.name = "dsv3-quick";
    return {with_defaults(small)};
  }
  std::vector<MlaDecodeProblem> out{deepseek_v3_problem(1, 8, 128), deepseek_v3_problem(4, 8, 128)};
  for (const char* repro : kHeaviestPlanCases) out.push_back(parse_mla_decode(repro));
  return out;
}

double oracle_flops(const MlaDecodeProblem& p) {
  double f = 0;
  for (int b = 0; b < batch(p); ++b) {
    f += 2.0 * p.q_lens[static_cast<std::size_t>(b)] * heads(p) * p.kv_lens[static_cast<std::size_t>(b)] *
         (lk(p) + p.kv_lora_rank);
  }
  return f;
}

double seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::pair<double, double> median_seconds_alternating(int runs, const std::function<void()>& a,
                                                     const std::function<void()>& b) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int i = 0; i < std::max(1, runs); ++i) {
    ta.push_back(seconds_of(a));
    tb.push_back(seconds_of(b));
  }
  return {median(ta), median(tb)};
}

struct DgemmYardstick::Product {
  MatrixRM a, b, c;
  int repeats;
  double sink = 0;
  explicit Product(const MlaDecodeProblem& p)
      : a(MatrixRM::Random(p.q_lens[0] * heads(p), lk(p))), b(MatrixRM::Random(p.kv_lens[0], lk(p))),
        c(a.rows(), b.rows()), repeats(batch(p)) {}
  void run() {
    for (int i = 0; i < repeats; ++i) {
      c.noalias() = a * b.transpose();
      sink += c(0, 0);  // keeps the products observable
    }
  }
  double flops() const {
    return 2.0 * repeats * static_cast<double>(a.rows()) * static_cast<double>(a.cols()) *
           static_cast<double>(b.rows());
  }
};

DgemmYardstick::DgemmYardstick(const MlaDecodeProblem& p, int threads) {
  for (int t = 0; t < std::max(1, threads); ++t) per_thread_.push_back(std::make_unique<Product>(p));
}

DgemmYardstick::~DgemmYardstick() = default;

void DgemmYardstick::run() {
  std::vector<std::thread> others;
  for (std::size_t t = 1; t < per_thread_.size(); ++t) others.emplace_back([this, t] { per_thread_[t]->run(); });
  per_thread_[0]->run();
  for (std::thread& t : others) t.join();
}

double DgemmYardstick::flops() const {
  return per_thread_.front()->flops() * static_cast<double>(per_thread_.size());
}

OracleRate measure_oracle_rate(const MlaDecodeProblem& p, int threads, int runs, PBucketKinds buckets) {
  const MlaDecodeInputs in = make_inputs(p);
  DgemmYardstick dgemm(deepseek_v3_problem(1, 2, 128), threads);
  MlaErrorScales scales;
  const auto [oracle_s, dgemm_s] = median_seconds_alternating(
      runs, [&] { mla_decode_reference(p, in, PRoundingPoint::kept_f32, &scales, threads, buckets); }, [&] { dgemm.run(); });
  OracleRate r;
  r.name = p.name;
  r.threads = threads;
  r.ms = oracle_s * 1e3;
  r.gflops = oracle_flops(p) / oracle_s * 1e-9;
  r.dgemm_gflops = dgemm.flops() / dgemm_s * 1e-9;
  return r;
}

}  // namespace mlacheck
