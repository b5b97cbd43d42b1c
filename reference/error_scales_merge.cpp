#include "reference/error_scales_merge.hpp"

#include <algorithm>

namespace mlacheck {

namespace {

void add(MlaErrorScales::PWeights& total, const MlaErrorScales::PWeights& part) {
  total.all += part.all;
  total.all_sq += part.all_sq;
  total.below_max += part.below_max;
  total.below_max_sq += part.below_max_sq;
}

}  // namespace

// A field added to MlaErrorScales must be merged here too: this size stops the build until it is.
static_assert(sizeof(MlaErrorScales) == 40 * sizeof(double), "merge_error_scales misses a field of MlaErrorScales");

void merge_error_scales(MlaErrorScales& total, const MlaErrorScales& part) {
  total.max_abs_q = std::max(total.max_abs_q, part.max_abs_q);
  total.max_abs_kv = std::max(total.max_abs_kv, part.max_abs_kv);
  total.max_score_magnitude = std::max(total.max_score_magnitude, part.max_score_magnitude);
  total.lse_score_rms = std::max(total.lse_score_rms, part.lse_score_rms);
  total.lse_score_mean = std::max(total.lse_score_mean, part.lse_score_mean);
  total.p_concentration = std::max(total.p_concentration, part.p_concentration);
  total.o_sq += part.o_sq;
  total.o_quad += part.o_quad;
  total.o_max_sq = std::max(total.o_max_sq, part.o_max_sq);
  total.p_weight += part.p_weight;
  total.p_weight_sq += part.p_weight_sq;
  total.p_weight_below_max += part.p_weight_below_max;
  total.p_weight_sq_below_max += part.p_weight_sq_below_max;
  total.p_floor_weight += part.p_floor_weight;
  for (int i = 0; i < 2; ++i) add(total.p_bucketed[i], part.p_bucketed[i]);
  total.score_weight += part.score_weight;
  total.exp_weight += part.exp_weight;
  total.max_abs_row_max = std::max(total.max_abs_row_max, part.max_abs_row_max);
  total.max_running_max_rises = std::max(total.max_running_max_rises, part.max_running_max_rises);
  for (int i = 0; i < 3; ++i) {
    total.walk_by_len[i] += part.walk_by_len[i];
    total.o_sq_by_len[i] += part.o_sq_by_len[i];
  }
  total.o_round_sq += part.o_round_sq;
  total.o_elements += part.o_elements;
  total.o_ulp_sq += part.o_ulp_sq;
  for (int k = 0; k < MlaErrorScales::kBoundaryLevels; ++k) total.o_near_boundary_sq[k] += part.o_near_boundary_sq[k];
}

}  // namespace mlacheck
