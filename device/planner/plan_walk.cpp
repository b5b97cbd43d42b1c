#include "device/planner/plan_walk.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <map>
#include <utility>

#include "device/planner/plan_layout.hpp"

namespace mlacheck {
namespace {

// A failing plan usually fails the same way many times; the first few say what is wrong.
constexpr std::size_t kListedDefects = 8;

void note(std::vector<std::string>& list, std::string defect) {
  if (list.size() < kListedDefects) {
    list.push_back(std::move(defect));
  } else if (list.size() == kListedDefects) {
    list.push_back("(further defects not listed)");
  }
}

std::string range(std::int64_t begin, std::int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

template <class T>
T read(std::span<const std::int32_t> buffer, std::size_t index) {
  constexpr std::size_t words = sizeof(T) / sizeof(std::int32_t);
  std::array<std::int32_t, words> raw{};
  std::copy_n(buffer.begin() + static_cast<std::ptrdiff_t>(index * words), words, raw.begin());
  return std::bit_cast<T>(raw);
}

struct PlacedItem {
  std::int32_t index;  // in work_info_set
  std::int32_t cu;
  WorkItem item;
  std::string where() const { return "item " + std::to_string(index) + " (CU " + std::to_string(cu) + ")"; }
};

// The batch the plan is for.
struct Batch {
  std::span<const std::int32_t> qo;
  std::span<const std::int32_t> kv;
  std::int32_t size() const { return static_cast<std::int32_t>(qo.size()) - 1; }
  // One past the last flat kv position query token r (of request b) may see.
  std::int64_t horizon(std::int32_t b, std::int64_t r) const { return kv[b + 1] - (qo[b + 1] - 1 - r); }
};

bool item_in_bounds(const PlacedItem& p, const MetadataHeader& h, const Batch& batch, PlanWalk& w) {
  const WorkItem& it = p.item;
  if (it.batch < 0 || it.batch >= batch.size()) {
    note(w.structure, p.where() + ": batch=" + std::to_string(it.batch) + " outside the " +
                          std::to_string(batch.size()) + " requests");
    return false;
  }
  const std::int32_t b = it.batch;
  bool ok = true;
  if (!(batch.qo[b] <= it.qo_start && it.qo_start < it.qo_end && it.qo_end <= batch.qo[b + 1])) {
    note(w.structure, p.where() + ": query rows " + range(it.qo_start, it.qo_end) +
                          " not a non-empty part of request " + std::to_string(b) + "'s " +
                          range(batch.qo[b], batch.qo[b + 1]));
    ok = false;
  } else if (it.qo_end - it.qo_start > h.q_tile_tokens) {
    note(w.structure, p.where() + ": " + std::to_string(it.qo_end - it.qo_start) +
                          " query rows, more than a q tile of " + std::to_string(h.q_tile_tokens));
    ok = false;
  }
  // Only a tile whose rows see nothing (a padded request's) may have an empty item, at the request's start.
  const bool tile_sees_nothing = ok && batch.horizon(b, it.qo_end - 1) <= batch.kv[b];
  const bool empty_ok = tile_sees_nothing && it.kv_start == batch.kv[b] && it.kv_end == batch.kv[b];
  if (!empty_ok && !(batch.kv[b] <= it.kv_start && it.kv_start < it.kv_end && it.kv_end <= batch.kv[b + 1])) {
    note(w.structure, p.where() + ": kv " + range(it.kv_start, it.kv_end) + " not a non-empty part of request " +
                          std::to_string(b) + "'s " + range(batch.kv[b], batch.kv[b + 1]));
    ok = false;
  }
  if (it.pad != 0) note(w.structure, p.where() + ": pad=" + std::to_string(it.pad) + ", must be 0");
  return ok;
}

// Reads the work lists; returns the items in bounds (the others are structure defects).
std::vector<PlacedItem> read_items(const ConstMetadataView& plan, const MetadataHeader& h, const Batch& batch,
                                   PlanWalk& w) {
  const auto& indptr = plan.work_indptr;
  if (h.num_cus < 1 || indptr.size() < static_cast<std::size_t>(h.num_cus) + 1) {
    note(w.structure,
         "header num_cus=" + std::to_string(h.num_cus) + " but work_indptr holds " + std::to_string(indptr.size()));
    return {};
  }
  if (indptr[0] != 0 || indptr[h.num_cus] != h.work_items ||
      !std::is_sorted(indptr.begin(), indptr.begin() + h.num_cus + 1) ||
      plan.work_info_set.size() < static_cast<std::size_t>(h.work_items) * kWorkItemInts) {
    note(w.structure, "work_indptr must rise from 0 to the header's " + std::to_string(h.work_items) +
                          " items, which work_info_set (" + std::to_string(plan.work_info_set.size()) +
                          " int32) must hold");
    return {};
  }
  std::vector<PlacedItem> items;
  w.cu_payload.assign(static_cast<std::size_t>(h.num_cus), 0);
  for (std::int32_t cu = 0; cu < h.num_cus; ++cu) {
    for (std::int32_t k = indptr[cu]; k < indptr[cu + 1]; ++k) {
      const PlacedItem p{k, cu, read<WorkItem>(plan.work_info_set, static_cast<std::size_t>(k))};
      if (!item_in_bounds(p, h, batch, w)) continue;
      w.cu_payload[static_cast<std::size_t>(cu)] +=
          (p.item.kv_end - p.item.kv_start + kKvGranule - 1) / kKvGranule + kItemOverheadGranules;
      items.push_back(p);
    }
  }
  return items;
}

void check_causal(const std::vector<PlacedItem>& items, const Batch& batch, PlanWalk& w) {
  for (const PlacedItem& p : items) {
    const WorkItem& it = p.item;
    const std::int64_t last_row = it.qo_end - 1;
    const std::int64_t rule = batch.horizon(it.batch, last_row);  // below the request's start: sees nothing
    const std::int64_t masked = std::int64_t{it.kv_end} + it.kv_offset - (batch.qo[it.batch + 1] - 1 - last_row);
    if (masked != rule) {
      note(w.causal, p.where() + ": kv_offset=" + std::to_string(it.kv_offset) + " lets query row " +
                         std::to_string(last_row) + " see kv up to " + std::to_string(masked) +
                         " (exclusive), the causal rule says " + std::to_string(rule));
    }
    if (it.kv_end > std::max<std::int64_t>(rule, batch.kv[it.batch])) {
      note(w.causal, p.where() + ": holds kv " + range(rule, it.kv_end) + " that no row of its tile " +
                         range(it.qo_start, it.qo_end) + " sees");
    }
  }
}

// Each query row's visible kv must be tiled exactly by the items covering the row, all of one q tile.
void check_coverage(const std::vector<PlacedItem>& items, const Batch& batch, PlanWalk& w) {
  struct Row {
    std::vector<std::pair<std::int64_t, std::int64_t>> kv;  // visible part of each covering item
    std::vector<std::int32_t> tile_starts;                  // qo_start of each covering item
  };
  std::vector<Row> rows(static_cast<std::size_t>(batch.qo[batch.size()]));
  for (const PlacedItem& p : items) {
    const WorkItem& it = p.item;
    for (std::int64_t r = it.qo_start; r < it.qo_end; ++r) {
      // The kernel's mask, from the item alone (plan_layout.hpp).
      const std::int64_t visible_end =
          std::min<std::int64_t>(it.kv_end, std::int64_t{it.kv_end} + it.kv_offset - (batch.qo[it.batch + 1] - 1 - r));
      Row& row = rows[static_cast<std::size_t>(r)];
      row.tile_starts.push_back(it.qo_start);
      if (visible_end > it.kv_start) {
        row.kv.emplace_back(it.kv_start, visible_end);
      } else if (it.partial_qo_loc >= 0) {
        ++w.empty_partial_rows;
      }
    }
  }
  for (std::int32_t b = 0; b < batch.size(); ++b) {
    for (std::int64_t r = batch.qo[b]; r < batch.qo[b + 1]; ++r) {
      Row& row = rows[static_cast<std::size_t>(r)];
      const std::string at = "request " + std::to_string(b) + " query row " + std::to_string(r);
      std::sort(row.tile_starts.begin(), row.tile_starts.end());
      if (row.tile_starts.empty() || row.tile_starts.front() != row.tile_starts.back()) {
        note(w.coverage,
             at + ": covered by items of " + (row.tile_starts.empty() ? std::string("no q tile") : "several q tiles"));
        continue;
      }
      std::sort(row.kv.begin(), row.kv.end());
      const std::int64_t begin = batch.kv[b];
      const std::int64_t end = std::max<std::int64_t>(batch.horizon(b, r), begin);  // a padded request's rows: none
      std::int64_t reached = begin;
      bool exact = true;
      for (auto [a, e] : row.kv) {
        if (a > reached) note(w.coverage, at + ": kv " + range(reached, a) + " covered by no item");
        if (a < reached) note(w.coverage, at + ": kv " + range(a, std::min(e, reached)) + " covered twice");
        exact = exact && a == reached;
        reached = std::max(reached, e);
      }
      if (reached < end) note(w.coverage, at + ": kv " + range(reached, end) + " covered by no item");
      if (reached > end) note(w.coverage, at + ": kv " + range(end, reached) + " covered beyond the causal horizon");
      if (exact && reached == end) w.covered += (end - begin) * w.head_tiles;
    }
  }
}

using TileKey = std::pair<std::int32_t, std::int32_t>;  // (qo_start, qo_end): unique across requests

// Items per q tile, in kv order; marks partial_qo_loc misuse and colliding partial rows.
std::map<TileKey, std::vector<const PlacedItem*>> check_partial_rows(const std::vector<PlacedItem>& items,
                                                                     const MetadataHeader& h, PlanWalk& w) {
  std::map<TileKey, std::vector<const PlacedItem*>> tiles;
  for (const PlacedItem& p : items) tiles[{p.item.qo_start, p.item.qo_end}].push_back(&p);
  std::vector<std::pair<std::int64_t, const PlacedItem*>> partial_starts;
  for (auto& [key, group] : tiles) {
    std::sort(group.begin(), group.end(),
              [](const PlacedItem* x, const PlacedItem* y) { return x->item.kv_start < y->item.kv_start; });
    const bool split = group.size() > 1;
    w.split_tiles += split ? 1 : 0;
    for (const PlacedItem* p : group) {
      if (!split && p->item.partial_qo_loc != -1) {
        note(w.partials, p->where() + ": tile " + range(key.first, key.second) + " is not split, yet partial_qo_loc=" +
                             std::to_string(p->item.partial_qo_loc) + " instead of -1");
      } else if (split && p->item.partial_qo_loc < 0) {
        note(w.partials, p->where() + ": tile " + range(key.first, key.second) + " is split over " +
                             std::to_string(group.size()) + " items, yet this one writes the final output");
      } else if (split) {
        const std::int64_t loc = p->item.partial_qo_loc;
        if (loc + (key.second - key.first) > h.partial_rows) {
          note(w.partials, p->where() + ": partial rows " + range(loc, loc + key.second - key.first) +
                               " beyond the header's " + std::to_string(h.partial_rows));
        }
        partial_starts.emplace_back(loc, p);
      }
    }
  }
  std::sort(partial_starts.begin(), partial_starts.end());
  for (std::size_t i = 1; i < partial_starts.size(); ++i) {
    const PlacedItem& prev = *partial_starts[i - 1].second;
    const std::int64_t prev_end = partial_starts[i - 1].first + (prev.item.qo_end - prev.item.qo_start);
    if (partial_starts[i].first < prev_end) {
      note(w.partials, prev.where() + " and " + partial_starts[i].second->where() + " both write partial row " +
                           std::to_string(partial_starts[i].first));
    }
  }
  if (static_cast<std::int64_t>(partial_starts.size()) != h.partials) {
    note(w.partials, "header counts " + std::to_string(h.partials) + " partials, the items " +
                         std::to_string(partial_starts.size()));
  }
  return tiles;
}

// The reduce buffers must list every split tile once, with its items' partial rows in kv order.
void check_reduce(const ConstMetadataView& plan, const MetadataHeader& h,
                  const std::map<TileKey, std::vector<const PlacedItem*>>& tiles, PlanWalk& w) {
  if (h.reduce_tiles != w.split_tiles) {
    note(w.partials, "header counts " + std::to_string(h.reduce_tiles) + " reduce tiles, the items split " +
                         std::to_string(w.split_tiles) + " q tiles");
  }
  const auto n = static_cast<std::size_t>(std::max(h.reduce_tiles, 0));
  const auto& indptr = plan.reduce_indptr;
  if (indptr.size() < n + 1 || plan.reduce_final_map.size() < 2 * n || indptr[0] != 0 ||
      !std::is_sorted(indptr.begin(), indptr.begin() + static_cast<std::ptrdiff_t>(n + 1)) || indptr[n] != h.partials ||
      plan.reduce_partial_map.size() < static_cast<std::size_t>(std::max(h.partials, 0))) {
    note(w.partials, "reduce_indptr must rise from 0 to the header's " + std::to_string(h.partials) +
                         " partials over its " + std::to_string(n) + " reduce tiles, within the buffers' sizes");
    return;
  }
  std::map<TileKey, int> merged;
  for (std::size_t i = 0; i < n; ++i) {
    const auto final_tile = read<FinalTile>(plan.reduce_final_map, i);
    const TileKey key{final_tile.qo_start, final_tile.qo_end};
    const std::string at = "reduce tile " + std::to_string(i) + " " + range(key.first, key.second);
    const auto found = tiles.find(key);
    if (found == tiles.end() || found->second.size() < 2) {
      note(w.partials, at + ": no split q tile has these rows");
      continue;
    }
    ++merged[key];
    std::vector<std::int32_t> expected;
    for (const PlacedItem* p : found->second) expected.push_back(p->item.partial_qo_loc);
    const std::vector<std::int32_t> listed(plan.reduce_partial_map.begin() + indptr[i],
                                           plan.reduce_partial_map.begin() + indptr[i + 1]);
    if (listed != expected) note(w.partials, at + ": partial rows differ from its items' (in kv order)");
  }
  for (const auto& [key, group] : tiles) {
    if (group.size() > 1 && merged[key] != 1) {
      note(w.partials, "split q tile " + range(key.first, key.second) + " is merged by " + std::to_string(merged[key]) +
                           " reduce tiles, not one");
    }
  }
}

}  // namespace

bool PlanWalk::clean() const { return structure.empty() && coverage.empty() && causal.empty() && partials.empty(); }

std::string PlanWalk::summary() const {
  std::string s;
  for (const auto* list : {&structure, &coverage, &causal, &partials}) {
    for (const std::string& d : *list) s += d + "\n";
  }
  return s;
}

PlanWalk walk_plan(const ConstMetadataView& plan, std::span<const std::int32_t> qo_indptr,
                   std::span<const std::int32_t> kv_indptr, int padded_heads) {
  PlanWalk w;
  w.head_tiles = (padded_heads + kHeadTile - 1) / kHeadTile;
  if (qo_indptr.size() != kv_indptr.size() || qo_indptr.size() < 2 || plan.work_meta_data.size() < kHeaderInts) {
    note(w.structure, "need batch + 1 entries in both indptrs and a full header in work_meta_data");
    return w;
  }
  const Batch batch{qo_indptr, kv_indptr};
  const auto h = read<MetadataHeader>(plan.work_meta_data, 0);
  if (h.padded_heads != padded_heads) {
    note(w.structure,
         "plan made for " + std::to_string(h.padded_heads) + " heads, the kernel runs " + std::to_string(padded_heads));
  }
  const std::vector<PlacedItem> items = read_items(plan, h, batch, w);
  check_causal(items, batch, w);
  check_coverage(items, batch, w);
  check_reduce(plan, h, check_partial_rows(items, h, w), w);
  return w;
}

}  // namespace mlacheck
