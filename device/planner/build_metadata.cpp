// Fills the six scheduling buffers for one batch: cut q tiles, pack them onto CUs, lay the plan
// out. The packing rule and its guarantees are stated in metadata.hpp and proved in
// metadata_info.cpp; this file only carries them out.
#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/planner/metadata.hpp"
#include "device/planner/planner_error.hpp"

namespace mlacheck {
namespace {

// Query rows [row_begin, row_end) of one request (request-local) and the kv prefix its last row sees.
struct QTile {
  std::int32_t request;
  std::int32_t row_begin;
  std::int32_t row_end;
  std::int32_t kv_tokens;  // kv_len - q_len + row_end
  std::int64_t granules;
};

// Granules [begin, end) of one tile, placed on one CU.
struct Piece {
  std::int32_t cu;
  std::int64_t begin;
  std::int64_t end;
};

struct Plan {
  MetadataHeader header{};
  std::vector<WorkItem> items;  // CU-major: packing never moves back to an earlier CU
  std::vector<std::int32_t> work_indptr;
  std::vector<std::int32_t> reduce_indptr{0};
  std::vector<FinalTile> final_tiles;
  std::vector<std::int32_t> partial_locs;
};

std::string entry(std::string_view name, std::size_t i, std::int64_t value) {
  return std::string(name) + "[" + std::to_string(i) + "]=" + std::to_string(value);
}

std::string sized_for_text(const MetadataInfo& info) {
  return "metadata_info(max_batch=" + std::to_string(info.max_batch) + ", max_q_len=" + std::to_string(info.max_q_len) +
         ", padded_heads=" + std::to_string(info.padded_heads) + ", num_cus=" + std::to_string(info.num_cus) + ")";
}

void check_sized_for(const MetadataInfo& info, const MetadataView& out) {
  if (info.max_batch < 1 || info.max_q_len < 1 || info.padded_heads < 1 || info.num_cus < 1 ||
      info.q_tile_tokens != q_tile_tokens(info.padded_heads)) {
    throw InvalidPlanInput("sized_for is not a result of metadata_info: " + sized_for_text(info));
  }
  const std::array<std::size_t, 6> need = {info.elements.work_meta_data,   info.elements.work_indptr,
                                           info.elements.work_info_set,    info.elements.reduce_indptr,
                                           info.elements.reduce_final_map, info.elements.reduce_partial_map};
  std::size_t i = 0;
  for_each_buffer(out, [&](std::string_view name, std::span<std::int32_t> buffer) {
    if (buffer.size() < need[i]) {
      throw InvalidPlanInput(std::string(name) + " holds " + std::to_string(buffer.size()) + " int32 but " +
                             sized_for_text(info) + " asks for " + std::to_string(need[i]));
    }
    ++i;
  });
}

void check_indptrs(std::span<const std::int32_t> qo, std::span<const std::int32_t> kv, const MetadataInfo& info) {
  if (qo.size() != kv.size()) {
    throw InvalidPlanInput("qo_indptr has " + std::to_string(qo.size()) + " entries but kv_indptr has " +
                           std::to_string(kv.size()) + "; both hold batch + 1 prefix sums");
  }
  if (qo.size() < 2) {
    throw InvalidPlanInput("qo_indptr has size " + std::to_string(qo.size()) +
                           "; a batch of at least one request needs batch + 1 entries");
  }
  const std::size_t batch = qo.size() - 1;
  if (batch > static_cast<std::size_t>(info.max_batch)) {
    throw InvalidPlanInput("batch of " + std::to_string(batch) + " requests exceeds max_batch=" +
                           std::to_string(info.max_batch) + " of " + sized_for_text(info));
  }
  if (qo[0] != 0) throw InvalidPlanInput(entry("qo_indptr", 0, qo[0]) + ": prefix sums start at 0");
  if (kv[0] != 0) throw InvalidPlanInput(entry("kv_indptr", 0, kv[0]) + ": prefix sums start at 0");
  for (std::size_t b = 0; b < batch; ++b) {
    const std::int64_t q_len = std::int64_t{qo[b + 1]} - qo[b];
    const std::int64_t kv_len = std::int64_t{kv[b + 1]} - kv[b];
    const std::string req = "request " + std::to_string(b) + ": ";
    if (q_len < 1) {
      throw InvalidPlanInput(req + "q_len=" + std::to_string(q_len) + " (" + entry("qo_indptr", b, qo[b]) + ", " +
                             entry("qo_indptr", b + 1, qo[b + 1]) + "); every request has at least one query token");
    }
    if (q_len > info.max_q_len) {
      throw InvalidPlanInput(req + "q_len=" + std::to_string(q_len) +
                             " exceeds max_q_len=" + std::to_string(info.max_q_len) + " of " + sized_for_text(info));
    }
    if (kv_len < 0 || (kv_len > 0 && kv_len < q_len)) {
      throw InvalidPlanInput(req + "kv_len=" + std::to_string(kv_len) + " < q_len=" + std::to_string(q_len) + " (" +
                             entry("kv_indptr", b, kv[b]) + ", " + entry("kv_indptr", b + 1, kv[b + 1]) +
                             "); the query tokens are part of the cache (only a padded request, kv_len 0, has none)");
    }
  }
}

std::vector<QTile> cut_q_tiles(std::span<const std::int32_t> qo, std::span<const std::int32_t> kv, int tile_tokens) {
  std::vector<QTile> tiles;
  for (std::size_t b = 0; b + 1 < qo.size(); ++b) {
    const std::int32_t q_len = qo[b + 1] - qo[b];
    const std::int32_t kv_len = kv[b + 1] - kv[b];
    for (std::int32_t row = 0; row < q_len; row += tile_tokens) {
      const std::int32_t row_end = std::min(row + tile_tokens, q_len);
      // 0 for the tiles of a padded request (kv_len 0), whose rows see nothing.
      const std::int32_t kv_tokens = std::max(0, kv_len - q_len + row_end);
      tiles.push_back(
          {static_cast<std::int32_t>(b), row, row_end, kv_tokens, (kv_tokens + kKvGranule - 1) / kKvGranule});
    }
  }
  return tiles;
}

std::int32_t to_header_field(std::int64_t value, const char* what) {
  if (value > std::numeric_limits<std::int32_t>::max()) {
    throw InvalidPlanInput(std::string(what) + " of " + std::to_string(value) + " does not fit the int32 header");
  }
  return static_cast<std::int32_t>(value);
}

// Greedy in-order packing (metadata.hpp); returns the pieces of each tile and sets the cap.
std::vector<std::vector<Piece>> pack(const std::vector<QTile>& tiles, int num_cus, std::int64_t& cap) {
  std::int64_t total = 0;
  for (const QTile& t : tiles) total += t.granules + kItemOverheadGranules;
  cap = (total + num_cus - 1) / num_cus + kItemOverheadGranules;

  std::vector<std::vector<Piece>> pieces(tiles.size());
  std::int32_t cu = 0;
  std::int64_t room = cap;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    std::int64_t done = 0;
    // A tile of no granules (a padded request) still gets one item, which writes its rows' O 0
    // and LSE -inf: it costs its overhead like any item, so the bound of metadata_info.cpp holds.
    bool placed = false;
    while (done < tiles[i].granules || !placed) {
      if (room <= kItemOverheadGranules) {  // not one granule fits beside an item's overhead
        if (++cu == num_cus) {
          throw std::logic_error(
              "persistent planner: work left after the last CU; the bound in metadata_info.cpp is broken");
        }
        room = cap;
        continue;
      }
      const std::int64_t take = std::min(tiles[i].granules - done, room - kItemOverheadGranules);
      pieces[i].push_back({cu, done, done + take});
      room -= take + kItemOverheadGranules;
      done += take;
      placed = true;
    }
  }
  return pieces;
}

Plan make_plan(std::span<const std::int32_t> qo, std::span<const std::int32_t> kv, const MetadataInfo& info) {
  const std::vector<QTile> tiles = cut_q_tiles(qo, kv, info.q_tile_tokens);
  std::int64_t cap = 0;
  const std::vector<std::vector<Piece>> pieces = pack(tiles, info.num_cus, cap);

  Plan plan;
  std::vector<std::int32_t> items_per_cu(static_cast<std::size_t>(info.num_cus), 0);
  std::int32_t next_partial_row = 0;
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const QTile& t = tiles[i];
    const bool split = pieces[i].size() > 1;
    const std::int32_t qo_start = qo[t.request] + t.row_begin;
    const std::int32_t qo_end = qo[t.request] + t.row_end;
    const std::int32_t kv_len = kv[t.request + 1] - kv[t.request];
    for (const Piece& p : pieces[i]) {
      const auto kv_begin = static_cast<std::int32_t>(p.begin * kKvGranule);
      const auto kv_end = static_cast<std::int32_t>(std::min<std::int64_t>(p.end * kKvGranule, t.kv_tokens));
      std::int32_t partial_qo_loc = -1;
      if (split) {
        partial_qo_loc = next_partial_row;
        plan.partial_locs.push_back(partial_qo_loc);
        next_partial_row += t.row_end - t.row_begin;
      }
      plan.items.push_back({t.request, partial_qo_loc, qo_start, qo_end, kv[t.request] + kv_begin,
                            kv[t.request] + kv_end, kv_len - kv_end, 0});
      ++items_per_cu[static_cast<std::size_t>(p.cu)];
    }
    if (split) {
      plan.final_tiles.push_back({qo_start, qo_end});
      plan.reduce_indptr.push_back(static_cast<std::int32_t>(plan.partial_locs.size()));
    }
  }
  plan.work_indptr.push_back(0);
  for (std::int32_t n : items_per_cu) plan.work_indptr.push_back(plan.work_indptr.back() + n);

  plan.header = {info.padded_heads,
                 info.q_tile_tokens,
                 info.num_cus,
                 static_cast<std::int32_t>(plan.items.size()),
                 static_cast<std::int32_t>(plan.final_tiles.size()),
                 static_cast<std::int32_t>(plan.partial_locs.size()),
                 next_partial_row,
                 to_header_field(cap, "a payload cap")};
  return plan;
}

// Copies `values` (int32 words each) to the front of `dst` and fills the rest with `tail`.
template <class T>
void put(std::span<std::int32_t> dst, const std::vector<T>& values, std::int32_t tail, std::string_view name) {
  constexpr std::size_t words = sizeof(T) / sizeof(std::int32_t);
  if (values.size() * words > dst.size()) {
    throw std::logic_error("persistent planner: " + std::string(name) +
                           " overflows its metadata_info size; the bound in metadata_info.cpp is broken");
  }
  std::size_t at = 0;
  for (const T& v : values) {
    for (std::int32_t w : std::bit_cast<std::array<std::int32_t, words>>(v)) dst[at++] = w;
  }
  std::fill(dst.begin() + static_cast<std::ptrdiff_t>(at), dst.end(), tail);
}

}  // namespace

MetadataHeader build_metadata(std::span<const std::int32_t> qo_indptr, std::span<const std::int32_t> kv_indptr,
                              const MetadataInfo& sized_for, const MetadataView& out) {
  check_sized_for(sized_for, out);
  check_indptrs(qo_indptr, kv_indptr, sized_for);
  const Plan plan = make_plan(qo_indptr, kv_indptr, sized_for);

  put(out.work_meta_data, std::vector<MetadataHeader>{plan.header}, 0, "work_meta_data");
  put(out.work_indptr, plan.work_indptr, plan.work_indptr.back(), "work_indptr");
  put(out.work_info_set, plan.items, 0, "work_info_set");
  put(out.reduce_indptr, plan.reduce_indptr, plan.reduce_indptr.back(), "reduce_indptr");
  put(out.reduce_final_map, plan.final_tiles, 0, "reduce_final_map");
  put(out.reduce_partial_map, plan.partial_locs, 0, "reduce_partial_map");
  return plan.header;
}

}  // namespace mlacheck
