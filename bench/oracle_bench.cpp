// Speed of the Eigen MLA oracle, beside yardsticks measured in the same run.
//
// Products: the oracle's outputs alone at DeepSeek-V3 shapes (128 heads, Lv 512, rope 64, kv_len
// 4096, 8 requests, q_len 1 and 4), single-threaded, against Eigen's dgemm on the oracle's own
// Q K^T shape (what the oracle can at best approach) and the plain-loop oracle (what the matrix
// formulation buys).
// Statistics: the oracle as the harness runs it, outputs and MlaErrorScales (the tight
// tolerance's statistics), at the same DeepSeek-V3 shapes and on the heaviest cases of `mlacheck
// run`'s default plan, on --threads threads, against dgemm on as many threads (each its own
// product of the Q K^T shape above). Target: at least a third of dgemm's rate.
//
//   mlacheck_oracle_bench [--runs N] [--threads T] [--statistics-only] [--csv]
//
// FLOPs count the two products: 2 * q_len * heads * kv_len * (Lk + Lv) per request. Oracle and
// dgemm times are medians of N alternating runs after a warm-up. The plain loop would take
// minutes at these shapes, so it is timed once on one request of 16 heads (same Lk, Lv, kv_len,
// q_len) and its rate applied.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

double seconds_of(const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Medians of `runs` timings of a and of b, taken alternately after one warm-up of each (paging in
// inputs, sizing Eigen's buffers), so that load from other processes falls on both alike.
std::pair<double, double> median_seconds_alternating(int runs, const std::function<void()>& a,
                                                     const std::function<void()>& b) {
  a();
  b();
  std::vector<double> ta, tb;
  for (int i = 0; i < runs; ++i) {
    ta.push_back(seconds_of(a));
    tb.push_back(seconds_of(b));
  }
  return {median(ta), median(tb)};
}

MlaDecodeProblem deepseek_v3(int q_len, int requests, int total_heads) {
  MlaDecodeProblem p;
  p.name = "dsv3_bench";
  p.total_heads = total_heads;
  p.kv_lora_rank = 512;
  p.rope_dim = 64;
  p.kv_lens.assign(static_cast<std::size_t>(requests), 4096);
  p.q_lens.assign(static_cast<std::size_t>(requests), q_len);
  p.block_size = 64;
  return with_defaults(p);
}

double flops(const MlaDecodeProblem& p) {
  double f = 0;
  for (int b = 0; b < batch(p); ++b) {
    f += 2.0 * p.q_lens[static_cast<std::size_t>(b)] * heads(p) * p.kv_lens[static_cast<std::size_t>(b)] *
         (lk(p) + p.kv_lora_rank);
  }
  return f;
}

using MatrixRM = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Eigen dgemm on the shape of one request's S = Q K^T: (q_len*heads x Lk) * (Lk x kv_len),
// repeated once per request so that it does as much work as the oracle's first product.
struct Dgemm {
  MatrixRM a, b, c;
  int repeats;
  double sink = 0;
  explicit Dgemm(const MlaDecodeProblem& p)
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

struct Row {
  std::string name;
  double ms, gflops, dgemm_gflops, plain_gflops;
};

Row measure(const std::string& name, int q_len, PRounding rounding, int runs) {
  const MlaDecodeProblem p = deepseek_v3(q_len, 8, 128);
  const MlaDecodeInputs in = make_inputs(p);
  Dgemm dgemm(p);
  const auto [oracle_s, dgemm_s] = median_seconds_alternating(
      runs, [&] { mla_decode_reference(p, in, rounding); }, [&] { dgemm.run(); });

  const MlaDecodeProblem slice = deepseek_v3(q_len, 1, 16);
  const MlaDecodeInputs slice_in = make_inputs(slice);
  const double plain_s = seconds_of([&] { mla_decode_plain(slice, slice_in, rounding); });
  return {name, oracle_s * 1e3, flops(p) / oracle_s * 1e-9, dgemm.flops() / dgemm_s * 1e-9,
          flops(slice) / plain_s * 1e-9};
}

// dgemm on `threads` threads at once, each its own product of the Q K^T shape of one DeepSeek-V3
// request (128 heads, q_len 1): the machine's rate on the threads the oracle is given.
struct ParallelDgemm {
  std::vector<Dgemm> per_thread;
  explicit ParallelDgemm(int threads) {
    const MlaDecodeProblem p = deepseek_v3(1, 2, 128);
    for (int t = 0; t < threads; ++t) per_thread.emplace_back(p);
  }
  void run() {
    std::vector<std::thread> others;
    for (std::size_t t = 1; t < per_thread.size(); ++t) others.emplace_back([this, t] { per_thread[t].run(); });
    per_thread[0].run();
    for (std::thread& t : others) t.join();
  }
  double flops() const { return per_thread.front().flops() * static_cast<double>(per_thread.size()); }
};

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

struct StatisticsRow {
  std::string name;
  double ms, gflops, dgemm_gflops;
};

StatisticsRow measure_statistics(const std::string& name, const MlaDecodeProblem& p, int threads, int runs) {
  const MlaDecodeInputs in = make_inputs(p);
  ParallelDgemm dgemm(threads);
  MlaErrorScales scales;
  const auto [oracle_s, dgemm_s] = median_seconds_alternating(
      runs, [&] { mla_decode_reference(p, in, PRounding::none, &scales, threads); }, [&] { dgemm.run(); });
  return {name, oracle_s * 1e3, flops(p) / oracle_s * 1e-9, dgemm.flops() / dgemm_s * 1e-9};
}

// The statistics target: the oracle with its statistics at a third of dgemm's rate or more.
constexpr double kStatisticsTarget = 1.0 / 3.0;

void print_statistics(const std::vector<StatisticsRow>& rows, int threads, int runs, bool csv) {
  if (csv) {
    std::puts("case,threads,ms,gflops,dgemm_gflops,fraction_of_dgemm,target_met");
    for (const StatisticsRow& r : rows) {
      std::printf("%s,%d,%.2f,%.2f,%.2f,%.3f,%d\n", r.name.c_str(), threads, r.ms, r.gflops, r.dgemm_gflops,
                  r.gflops / r.dgemm_gflops, r.gflops / r.dgemm_gflops >= kStatisticsTarget ? 1 : 0);
    }
    return;
  }
  std::printf("\nMLA oracle with its statistics (MlaErrorScales), %d thread(s), against dgemm on as many; "
              "median of %d runs; target >= 1/3 of dgemm\n\n",
              threads, runs);
  std::printf("%-34s %9s %9s %13s %9s  %s\n", "case", "ms", "GFLOP/s", "dgemm GFLOP/s", "of dgemm", "target");
  for (const StatisticsRow& r : rows) {
    const double fraction = r.gflops / r.dgemm_gflops;
    std::printf("%-34s %9.1f %9.2f %13.2f %9.3f  %s\n", r.name.c_str(), r.ms, r.gflops, r.dgemm_gflops, fraction,
                fraction >= kStatisticsTarget ? "met" : "missed");
  }
}

}  // namespace
}  // namespace mlacheck

int main(int argc, char** argv) {
  using namespace mlacheck;
  int runs = 5;
  int threads = 1;
  bool csv = false;
  bool statistics_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else if (std::strcmp(argv[i], "--statistics-only") == 0) {
      statistics_only = true;
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--threads T] [--statistics-only] [--csv]\n", argv[0]);
      return 2;
    }
  }

  std::vector<StatisticsRow> statistics;
  statistics.push_back(measure_statistics("dsv3 q_len=1", deepseek_v3(1, 8, 128), threads, runs));
  statistics.push_back(measure_statistics("dsv3 q_len=4", deepseek_v3(4, 8, 128), threads, runs));
  for (const char* repro : kHeaviestPlanCases) {
    const MlaDecodeProblem p = parse_mla_decode(repro);
    statistics.push_back(measure_statistics(p.name, p, threads, runs));
  }
  print_statistics(statistics, threads, runs, csv);
  if (statistics_only) return 0;

  std::vector<Row> rows;
  rows.push_back(measure("dsv3 q_len=1", 1, PRounding::none, runs));
  rows.push_back(measure("dsv3 q_len=4", 4, PRounding::none, runs));
  rows.push_back(measure("dsv3 q_len=1 P rounded", 1, PRounding::to_q_dtype, runs));
  rows.push_back(measure("dsv3 q_len=4 P rounded", 4, PRounding::to_q_dtype, runs));

  if (csv) {
    std::puts("");
    std::puts("case,ms,gflops,dgemm_gflops,pct_of_dgemm,plain_gflops,x_plain");
    for (const Row& r : rows) {
      std::printf("%s,%.2f,%.2f,%.2f,%.1f,%.3f,%.1f\n", r.name.c_str(), r.ms, r.gflops, r.dgemm_gflops,
                  100.0 * r.gflops / r.dgemm_gflops, r.plain_gflops, r.gflops / r.plain_gflops);
    }
    return 0;
  }
  std::printf("\nMLA oracle, outputs only, DeepSeek-V3 shapes: 128 heads, Lv 512, rope 64, kv_len 4096, 8 requests; "
              "1 thread, median of %d runs\n",
              runs);
  std::printf("plain loop timed on 1 request x 16 heads and its rate applied\n\n");
  std::printf("%-24s %9s %9s %13s %8s %13s %8s\n", "case", "ms", "GFLOP/s", "dgemm GFLOP/s", "% dgemm",
              "plain GFLOP/s", "x plain");
  for (const Row& r : rows) {
    std::printf("%-24s %9.1f %9.2f %13.2f %7.1f%% %13.3f %8.1f\n", r.name.c_str(), r.ms, r.gflops, r.dgemm_gflops,
                100.0 * r.gflops / r.dgemm_gflops, r.plain_gflops, r.gflops / r.plain_gflops);
  }
  return 0;
}
