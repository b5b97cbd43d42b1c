// Speed of the Eigen MLA oracle at DeepSeek-V3 shapes (128 heads, Lv 512, rope 64, kv_len 4096,
// 8 requests, q_len 1 and 4), single-threaded, beside two yardsticks measured in the same run:
// Eigen's dgemm on the oracle's own Q K^T shape (what the oracle can at best approach) and the
// plain-loop oracle (what the matrix formulation buys).
//
//   mlacheck_oracle_bench [--runs N] [--csv]
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
#include <utility>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
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

}  // namespace
}  // namespace mlacheck

int main(int argc, char** argv) {
  using namespace mlacheck;
  int runs = 5;
  bool csv = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--csv]\n", argv[0]);
      return 2;
    }
  }

  std::vector<Row> rows;
  rows.push_back(measure("dsv3 q_len=1", 1, PRounding::none, runs));
  rows.push_back(measure("dsv3 q_len=4", 4, PRounding::none, runs));
  rows.push_back(measure("dsv3 q_len=1 P rounded", 1, PRounding::to_q_dtype, runs));
  rows.push_back(measure("dsv3 q_len=4 P rounded", 4, PRounding::to_q_dtype, runs));

  if (csv) {
    std::puts("case,ms,gflops,dgemm_gflops,pct_of_dgemm,plain_gflops,x_plain");
    for (const Row& r : rows) {
      std::printf("%s,%.2f,%.2f,%.2f,%.1f,%.3f,%.1f\n", r.name.c_str(), r.ms, r.gflops, r.dgemm_gflops,
                  100.0 * r.gflops / r.dgemm_gflops, r.plain_gflops, r.gflops / r.plain_gflops);
    }
    return 0;
  }
  std::printf("MLA oracle, DeepSeek-V3 shapes: 128 heads, Lv 512, rope 64, kv_len 4096, 8 requests; "
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
