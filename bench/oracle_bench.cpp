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
//   mlacheck_oracle_bench [--runs N] [--threads T] [--buckets both|judged] [--statistics-only] [--csv]
//
// --buckets judged measures the rounding buckets the harness measures for a backend declaring P at
// its MMA input (the hip backend's point; reference/p_bucket_kinds.hpp), `both` (the default) both
// dtypes' as a caller that does not know the point.
//
// Each statistics row also gives the case's units of work (reference/oracle_work_units.hpp): its
// key chunks, row blocks and value blocks, what its threads share in each stage.
//
// FLOPs count the two products: 2 * q_len * heads * kv_len * (Lk + Lv) per request. Oracle and
// dgemm times are medians of N alternating runs after a warm-up. The plain loop would take
// minutes at these shapes, so it is timed once on one request of 16 heads (same Lk, Lv, kv_len,
// q_len) and its rate applied.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bench/oracle_targets.hpp"
#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"
#include "core/tolerance.hpp"
#include "reference/mla_decode_plain.hpp"
#include "reference/mla_decode_reference.hpp"
#include "reference/oracle_work_units.hpp"
#include "reference/p_bucket_kinds.hpp"

namespace mlacheck {
namespace {

struct Row {
  std::string name;
  double ms, gflops, dgemm_gflops, plain_gflops;
};

Row measure(const std::string& name, int q_len, PRoundingPoint rounding, int runs) {
  const MlaDecodeProblem p = deepseek_v3_problem(q_len, 8, 128);
  const MlaDecodeInputs in = make_inputs(p);
  DgemmYardstick dgemm(p, 1);
  const auto [oracle_s, dgemm_s] = median_seconds_alternating(
      runs, [&] { mla_decode_reference(p, in, rounding); }, [&] { dgemm.run(); });

  const MlaDecodeProblem slice = deepseek_v3_problem(q_len, 1, 16);
  const MlaDecodeInputs slice_in = make_inputs(slice);
  const double plain_s = seconds_of([&] { mla_decode_plain(slice, slice_in, rounding); });
  return {name, oracle_s * 1e3, oracle_flops(p) / oracle_s * 1e-9, dgemm.flops() / dgemm_s * 1e-9,
          oracle_flops(slice) / plain_s * 1e-9};
}

void print_statistics(const std::vector<OracleRate>& rows, const std::vector<OracleWorkUnits>& units, int threads,
                      int runs, const char* buckets, bool csv) {
  if (csv) {
    std::puts("case,threads,ms,gflops,dgemm_gflops,fraction_of_dgemm,target_met,key_chunks,row_blocks,value_blocks");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const OracleRate& r = rows[i];
      std::printf("%s,%d,%.2f,%.2f,%.2f,%.3f,%d,%d,%d,%d\n", r.name.c_str(), threads, r.ms, r.gflops, r.dgemm_gflops,
                  r.gflops / r.dgemm_gflops, r.gflops / r.dgemm_gflops >= kOracleFractionTarget ? 1 : 0,
                  units[i].key_chunks, units[i].row_blocks, units[i].value_blocks);
    }
    return;
  }
  std::printf("\nMLA oracle with its statistics (MlaErrorScales, rounding buckets: %s), %d thread(s), against dgemm "
              "on as many; median of %d runs; target >= 1/3 of dgemm\n\n",
              buckets, threads, runs);
  std::printf("%-34s %9s %9s %13s %9s  %-7s %s\n", "case", "ms", "GFLOP/s", "dgemm GFLOP/s", "of dgemm", "target",
              "units: keys/rows/values");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const OracleRate& r = rows[i];
    const double fraction = r.gflops / r.dgemm_gflops;
    std::printf("%-34s %9.1f %9.2f %13.2f %9.3f  %-7s %d/%d/%d\n", r.name.c_str(), r.ms, r.gflops, r.dgemm_gflops,
                fraction, fraction >= kOracleFractionTarget ? "met" : "missed", units[i].key_chunks,
                units[i].row_blocks, units[i].value_blocks);
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
  std::string buckets = "both";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--csv") == 0) {
      csv = true;
    } else if (std::strcmp(argv[i], "--statistics-only") == 0) {
      statistics_only = true;
    } else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--buckets") == 0 && i + 1 < argc && (std::strcmp(argv[i + 1], "both") == 0 ||
                                                                          std::strcmp(argv[i + 1], "judged") == 0)) {
      buckets = argv[++i];
    } else if (std::strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--threads T] [--buckets both|judged] [--statistics-only] [--csv]\n", argv[0]);
      return 2;
    }
  }

  std::vector<OracleRate> statistics;
  std::vector<OracleWorkUnits> units;
  for (const MlaDecodeProblem& p : oracle_target_problems(false)) {
    units.push_back(oracle_work_units(p));
    PBucketKinds kinds;
    if (buckets == "judged") kinds = p_buckets_judged(p, PRoundingPoint::to_mma_input);
    statistics.push_back(measure_oracle_rate(p, threads, runs, kinds));
  }
  print_statistics(statistics, units, threads, runs, buckets.c_str(), csv);
  if (statistics_only) return 0;

  std::vector<Row> rows;
  rows.push_back(measure("dsv3 q_len=1", 1, PRoundingPoint::kept_f32, runs));
  rows.push_back(measure("dsv3 q_len=4", 4, PRoundingPoint::kept_f32, runs));
  rows.push_back(measure("dsv3 q_len=1 P rounded", 1, PRoundingPoint::to_q_dtype, runs));
  rows.push_back(measure("dsv3 q_len=4 P rounded", 4, PRoundingPoint::to_q_dtype, runs));

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
