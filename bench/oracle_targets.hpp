#pragma once
// The oracle's speed target (issue 29): its double-precision rate with the tight tolerance's
// statistics on the sweep's largest problems, against Eigen's dgemm measured in the same run on as
// many threads. Shared by mlacheck_oracle_bench and the harness section of `mlacheck bench`.
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/mla_problem.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck {

// The target: at least a third of dgemm's rate.
inline constexpr double kOracleFractionTarget = 1.0 / 3.0;

// DeepSeek-V3 decode (Lv 512, rope 64, kv_len 4096 a request, block 64): `requests` requests of
// q_len query tokens and total_heads heads.
MlaDecodeProblem deepseek_v3_problem(int q_len, int requests, int total_heads);

// The sweep's largest oracle problems: the two DeepSeek-V3 shapes (8 requests, 128 heads, q_len 1
// and 4) and the heaviest oracle cases of `mlacheck run`'s default plan. `quick`: one small
// DeepSeek-V3 problem, for smoke tests of the commands (no figure to report).
std::vector<MlaDecodeProblem> oracle_target_problems(bool quick);

// The oracle's two products: 2 * q_len * heads * kv_len * (Lk + Lv) a request.
double oracle_flops(const MlaDecodeProblem& p);

double seconds_of(const std::function<void()>& work);
// Medians of `runs` timings of a and of b, taken alternately after one warm-up of each (paging in
// inputs, sizing Eigen's buffers), so that load from other processes falls on both alike.
std::pair<double, double> median_seconds_alternating(int runs, const std::function<void()>& a,
                                                     const std::function<void()>& b);

// Eigen dgemm on `threads` threads at once, each its own product of the shape of S = Q K^T of p's
// first request ((q_len heads) x Lk times Lk x kv_len), repeated once per request of p.
class DgemmYardstick {
 public:
  DgemmYardstick(const MlaDecodeProblem& p, int threads);
  ~DgemmYardstick();
  DgemmYardstick(const DgemmYardstick&) = delete;
  DgemmYardstick& operator=(const DgemmYardstick&) = delete;
  void run();
  double flops() const;

 private:
  struct Product;
  std::vector<std::unique_ptr<Product>> per_thread_;
};

struct OracleRate {
  std::string name;
  int threads = 1;
  double ms = 0.0;            // the oracle's median wall time
  double gflops = 0.0;        // oracle_flops / that time
  double dgemm_gflops = 0.0;  // dgemm on as many threads in the same run
  double fraction() const { return dgemm_gflops > 0.0 ? gflops / dgemm_gflops : 0.0; }
};

// The oracle with its statistics (mla_decode_reference with scales and `buckets`) on `threads`
// threads against DgemmYardstick on as many (one DeepSeek-V3 request of 128 heads, q_len 1, twice:
// 128 x 576 x 4096 a thread), medians of `runs` alternating timings.
OracleRate measure_oracle_rate(const MlaDecodeProblem& p, int threads, int runs, PBucketKinds buckets = {});

}  // namespace mlacheck
