#include "reference/mla_decode_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "reference/oracle_request_stages.hpp"
#include "reference/oracle_statistics.hpp"
#include "reference/oracle_work_units.hpp"
#include "reference/page_indices.hpp"
#include "reference/parallel_for.hpp"

namespace mlacheck {

namespace {

void expect_size(std::size_t actual, std::size_t expected, const std::string& what) {
  if (actual != expected) {
    throw std::invalid_argument("MLA decode inputs: " + what + " holds " + std::to_string(actual) +
                                " values, the problem needs " + std::to_string(expected));
  }
}

// Runs body(work, unit, worker) for every unit of every request of a wave on `threads` threads,
// units_of(work) units a request.
template <class Units, class Body>
void run_stage(std::span<OracleRequestWork> wave, int threads, Units units_of, Body body) {
  std::vector<std::pair<std::size_t, int>> units;
  for (std::size_t slot = 0; slot < wave.size(); ++slot) {
    for (int u = 0; u < units_of(wave[slot]); ++u) units.emplace_back(slot, u);
  }
  parallel_for(static_cast<int>(units.size()), threads, [&](int i, int worker) {
    body(wave[units[static_cast<std::size_t>(i)].first], units[static_cast<std::size_t>(i)].second, worker);
  });
}

// The requests after `first` computed together: up to `threads` of them, fewer once every stage
// has two units a thread (a wave's arrays are held at once).
int wave_end(const MlaDecodeProblem& p, int first, int threads) {
  OracleWorkUnits units;
  int end = first;
  while (end < batch(p) && end - first < threads) {
    units.key_chunks += key_chunk_count(p.kv_lens[static_cast<std::size_t>(end)]);
    units.row_blocks += row_block_count(p.q_lens[static_cast<std::size_t>(end)] * heads(p));
    units.value_blocks += value_block_count(p.kv_lora_rank);
    ++end;
    if (units.fewest() >= 2 * threads) break;
  }
  return end;
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
  std::vector<OracleRequestWork> work(static_cast<std::size_t>(std::clamp(requests, 1, threads)));
  std::vector<RowStatisticsScratch> scratch(static_cast<std::size_t>(threads));
  for (int first = 0; first < requests;) {
    const int end = wave_end(p, first, threads);
    const std::span<OracleRequestWork> wave(work.data(), static_cast<std::size_t>(end - first));
    run_stage(wave, threads, [](const OracleRequestWork&) { return 1; },
              [&](OracleRequestWork& w, int, int) { begin_request(call, first + static_cast<int>(&w - work.data()), w); });
    run_stage(wave, threads, [](const OracleRequestWork& w) { return key_chunk_count(w.kv); },
              [&](OracleRequestWork& w, int chunk, int) { run_key_chunk(call, w, chunk); });
    run_stage(wave, threads, [](const OracleRequestWork& w) { return row_block_count(w.rows); },
              [&](OracleRequestWork& w, int block, int) { run_softmax_rows(call, w, block); });
    run_stage(wave, threads, [&](const OracleRequestWork&) { return value_block_count(p.kv_lora_rank); },
              [&](OracleRequestWork& w, int block, int) { run_value_block(call, w, block); });
    if (scales != nullptr) {
      run_stage(wave, threads, [](const OracleRequestWork& w) { return row_block_count(w.rows); },
                [&](OracleRequestWork& w, int block, int worker) {
                  run_statistics_rows(call, w, block, scratch[static_cast<std::size_t>(worker)]);
                });
    }
    for (OracleRequestWork& w : wave) finish_request(call, w, scales);
    first = end;
  }
  return out;
}

}  // namespace mlacheck
