#include "reference/mla_decode_reference.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/parallel_for.hpp"
#include "reference/oracle_request_stages.hpp"
#include "reference/oracle_statistics.hpp"
#include "reference/oracle_work_units.hpp"
#include "reference/page_indices.hpp"

namespace mlacheck {

namespace {

void expect_size(std::size_t actual, std::size_t expected, const std::string& what) {
  if (actual != expected) {
    throw std::invalid_argument("MLA decode inputs: " + what + " holds " + std::to_string(actual) +
                                " values, the problem needs " + std::to_string(expected));
  }
}

// Runs body(work, unit, worker) for every unit of every request of a wave on `threads` threads,
// units_of(work) units a request, the costliest first by cost(work, unit) (an estimate in
// multiply-adds), so that no large unit is left for the end of the stage. The order changes which
// thread computes a unit, never what the unit writes.
template <class Units, class Cost, class Body>
void run_stage(std::span<OracleRequestWork> wave, int threads, Units units_of, Cost cost, Body body) {
  struct Unit {
    double cost;
    std::size_t slot;
    int index;
  };
  std::vector<Unit> units;
  for (std::size_t slot = 0; slot < wave.size(); ++slot) {
    for (int u = 0; u < units_of(wave[slot]); ++u) units.push_back({cost(wave[slot], u), slot, u});
  }
  std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.cost > b.cost; });
  parallel_for(static_cast<int>(units.size()), threads, [&](int i, int worker) {
    const Unit& u = units[static_cast<std::size_t>(i)];
    body(wave[u.slot], u.index, worker);
  });
}

}  // namespace

void check_mla_inputs(const MlaDecodeProblem& p, const MlaDecodeInputs& in) {
  validate(p);
  const auto width = static_cast<std::size_t>(lk(p));
  expect_size(in.q.size(), static_cast<std::size_t>(total_q_tokens(p)) * static_cast<std::size_t>(heads(p)) * width,
              "q");
  expect_size(in.kv_cache.size(),
              static_cast<std::size_t>(host_cache_blocks(p)) * static_cast<std::size_t>(p.block_size) * width,
              "kv_cache (blocks first_block..num_blocks)");
}

MlaDecodeOutputs<double> faithful_oracle(const MlaDecodeProblem& p, const MlaTolerances& tol,
                                         MlaDecodeOutputs<double> exact) {
  if (tol.oracle_o_rounded) {
    for (double& v : exact.o) v = round_to(p.o_dtype, static_cast<float>(v));
  }
  return exact;
}

std::optional<DType> oracle_p_dtype(const MlaDecodeProblem& p, PRoundingPoint rounding) {
  if (rounding == PRoundingPoint::kept_f32) return std::nullopt;
  const ResolvedPRounding resolved = resolve_p_rounding(p, rounding);
  if (resolved.split) {
    throw std::invalid_argument("the oracle rounds P to one dtype; " + resolved.describe +
                                " splits it, and is judged against the oracle with P kept");
  }
  if (!resolved.rounded) return std::nullopt;
  return resolved.dtype;
}

MlaDecodeOutputs<double> mla_decode_reference(const MlaDecodeProblem& p, const MlaDecodeInputs& in, PRoundingPoint rounding,
                                              MlaErrorScales* scales, int threads, PBucketKinds buckets) {
  if (scales != nullptr) *scales = MlaErrorScales{};
  check_mla_inputs(p, in);
  const std::optional<DType> p_dtype = oracle_p_dtype(p, rounding);
  const PageIndices pages = expand_page_indices(p, in);
  const int h = heads(p);
  const std::vector<int> qo = qo_indptr(p);
  const auto tokens = static_cast<std::size_t>(qo.back());
  const int requests = batch(p);

  MlaDecodeOutputs<double> out;
  out.o.resize(tokens * static_cast<std::size_t>(h) * static_cast<std::size_t>(p.kv_lora_rank));
  out.lse.resize(tokens * static_cast<std::size_t>(h));

  // The requests of a wave go through the stages of reference/oracle_work_units.hpp together, each
  // stage's units spread over the threads; the units do not depend on the thread count, and the
  // requests' scales are merged in request order, so neither do the results.
  threads = std::max(1, threads);
  const OracleCall call{p, in, pages, qo, p_dtype, scales != nullptr, buckets, out};
  // A wave of up to `threads` requests is held at once (as many as whole requests on that many
  // threads would hold).
  std::vector<OracleRequestWork> work(static_cast<std::size_t>(std::clamp(requests, 1, threads)));
  std::vector<RowStatisticsScratch> scratch(static_cast<std::size_t>(threads));
  const double lv = p.kv_lora_rank;
  const auto rows_times_tokens = [](const OracleRequestWork& w, int block) {
    return static_cast<double>(row_block(w.rows, block).size()) * w.kv;
  };
  for (int first = 0; first < requests; first += static_cast<int>(work.size())) {
    const int end = std::min(requests, first + static_cast<int>(work.size()));
    const std::span<OracleRequestWork> wave(work.data(), static_cast<std::size_t>(end - first));
    run_stage(
        wave, threads, [](const OracleRequestWork&) { return 1; }, [](const OracleRequestWork&, int) { return 0.0; },
        [&](OracleRequestWork& w, int, int) { begin_request(call, first + static_cast<int>(&w - work.data()), w); });
    run_stage(
        wave, threads, [](const OracleRequestWork& w) { return key_chunk_count(w.kv); },
        [](const OracleRequestWork& w, int chunk) { return static_cast<double>(w.rows) * key_chunk(w.kv, chunk).size(); },
        [&](OracleRequestWork& w, int chunk, int) { run_key_chunk(call, w, chunk); });
    run_stage(
        wave, threads, [](const OracleRequestWork& w) { return row_block_count(w.rows); }, rows_times_tokens,
        [&](OracleRequestWork& w, int block, int) { run_softmax_rows(call, w, block); });
    run_stage(
        wave, threads, [&](const OracleRequestWork&) { return value_block_count(p.kv_lora_rank); },
        [&](const OracleRequestWork& w, int block) {
          return static_cast<double>(w.rows) * w.kv * value_block(p.kv_lora_rank, block).size();
        },
        [&](OracleRequestWork& w, int block, int) { run_value_block(call, w, block); });
    if (scales != nullptr) {
      run_stage(
          wave, threads, [](const OracleRequestWork& w) { return row_block_count(w.rows); },
          [&](const OracleRequestWork& w, int block) { return rows_times_tokens(w, block) * lv; },
          [&](OracleRequestWork& w, int block, int worker) {
            run_statistics_rows(call, w, block, scratch[static_cast<std::size_t>(worker)]);
          });
    }
    for (OracleRequestWork& w : wave) finish_request(call, w, scales);
  }
  return out;
}

}  // namespace mlacheck
