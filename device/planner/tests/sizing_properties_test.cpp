// Properties of sizing and refusal: metadata_info's shapes hold every batch within their maxima
// (the invariant UPSTREAM.md S2 broke), and input outside them is refused with a clear error.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>

#include "device/planner/planner_error.hpp"
#include "device/planner/tests/planner_cases.hpp"

namespace mlacheck::planner_test {
namespace {

// The message of the InvalidPlanInput that `plan_it` throws, or "" when it throws none.
template <class F>
std::string refusal(F&& plan_it) {
  try {
    plan_it();
  } catch (const InvalidPlanInput& e) {
    return e.what();
  }
  return "";
}

bool mentions(const std::string& message, const std::string& what) {
  RC_LOG() << "message: " << message << "\n";
  return message.find(what) != std::string::npos;
}

}  // namespace

RC_GTEST_PROP(PlannerProperty, MetadataInfoSufficesForAnyBatchWithinItsMaxima, ()) {
  const PlannerCase c = *gen_planner_case();
  const Planned p = plan(c);  // buffers sized exactly as metadata_info asks: must not throw
  RC_ASSERT(p.walk.clean());
  RC_ASSERT(p.header.work_items <= p.info.max_work_items);
  RC_ASSERT(p.header.reduce_tiles <= p.info.max_reduce_tiles);
  RC_ASSERT(p.header.partials <= p.info.max_partials);
  RC_ASSERT(p.header.partial_rows <= p.info.partial_rows);
  // The derivation's key step (metadata_info.cpp): at most num_cus - 1 splits, whatever the kv lengths.
  const int tile = q_tile_tokens(c.padded_heads);
  std::int64_t tiles = 0;
  for (int q : c.q_lens) tiles += (q + tile - 1) / tile;
  RC_ASSERT(p.header.work_items - tiles <= c.num_cus - 1);
  RC_CLASSIFY(*std::max_element(c.kv_lens.begin(), c.kv_lens.end()) > 8192, "a kv_len over 8192");
  RC_CLASSIFY(c.q_lens.size() > 16, "over 16 requests");
  RC_CLASSIFY(c.max_q_len > q_tile_tokens(c.padded_heads), "several q tiles per request");
  RC_CLASSIFY(p.header.work_items == p.info.max_work_items, "work item bound attained");
  RC_CLASSIFY(p.header.partials == p.info.max_partials, "partial bound attained");
}

RC_GTEST_PROP(PlannerProperty, RefusesBadInputWithAClearError, ()) {
  PlannerCase c = *gen_planner_case();
  const MetadataInfo info = c.info();
  HostMetadata buffers = allocate_metadata(info);
  const std::size_t b = *rc::gen::inRange<std::size_t>(0, c.q_lens.size());
  const std::string request = "request " + std::to_string(b) + ": ";
  std::vector<std::int32_t> qo = c.qo_indptr();
  std::vector<std::int32_t> kv = c.kv_indptr();
  auto build = [&] { build_metadata(qo, kv, info, view(buffers)); };
  auto rebuild_indptrs = [&] {
    qo = c.qo_indptr();
    kv = c.kv_indptr();
  };

  switch (*rc::gen::inRange(0, 9)) {
    case 0:  // fewer cached tokens than query tokens, down to negative lengths (0 is a padded request)
      c.kv_lens[b] = c.q_lens[b] - *rc::gen::inRange(1, 4);
      if (c.kv_lens[b] == 0) c.kv_lens[b] = -1;
      rebuild_indptrs();
      RC_ASSERT(mentions(refusal(build), request + "kv_len=" + std::to_string(c.kv_lens[b]) + " < q_len="));
      break;
    case 1:  // a request without query tokens, or a decreasing qo_indptr
      c.q_lens[b] = -*rc::gen::inRange(0, 3);
      rebuild_indptrs();
      RC_ASSERT(mentions(refusal(build), request + "q_len=" + std::to_string(c.q_lens[b])));
      break;
    case 2:  // more requests than sized for
      while (static_cast<int>(c.q_lens.size()) <= c.max_batch) {
        c.q_lens.push_back(1);
        c.kv_lens.push_back(1);
      }
      rebuild_indptrs();
      RC_ASSERT(mentions(refusal(build), "exceeds max_batch=" + std::to_string(c.max_batch)));
      break;
    case 3:  // a longer query than sized for
      c.q_lens[b] = c.max_q_len + *rc::gen::inRange(1, 9);
      c.kv_lens[b] = std::max(c.kv_lens[b], c.q_lens[b]);
      rebuild_indptrs();
      RC_ASSERT(mentions(refusal(build), request + "q_len=" + std::to_string(c.q_lens[b]) + " exceeds max_q_len="));
      break;
    case 4:  // prefix sums that do not start at 0
      for (auto& x : kv) x += 1;
      RC_ASSERT(mentions(refusal(build), "kv_indptr[0]=1"));
      break;
    case 5:  // indptrs of different lengths
      kv.pop_back();
      RC_ASSERT(mentions(refusal(build), "entries but kv_indptr has"));
      break;
    case 6: {  // one buffer smaller than metadata_info asks
      const std::size_t which = *rc::gen::inRange<std::size_t>(0, kMetadataBufferNames.size());
      MetadataView v = view(buffers);
      std::size_t i = 0;
      for_each_buffer(v, [&](std::string_view, std::span<std::int32_t>& s) {
        if (i++ == which) s = s.first(s.size() - 1);
      });
      const std::string message = refusal([&] { build_metadata(qo, kv, info, v); });
      RC_ASSERT(mentions(message, std::string(kMetadataBufferNames[which]) + " holds"));
      RC_ASSERT(mentions(message, "asks for"));
      break;
    }
    case 7: {  // a maximum that is not positive
      const int bad = -*rc::gen::inRange(0, 3);
      RC_ASSERT(mentions(refusal([&] { metadata_info(c.max_batch, bad, c.padded_heads, c.num_cus); }),
                         "max_q_len=" + std::to_string(bad) + ": must be >= 1"));
      RC_ASSERT(mentions(refusal([&] { metadata_info(c.max_batch, c.max_q_len, c.padded_heads, bad); }),
                         "num_cus=" + std::to_string(bad) + ": must be >= 1"));
      break;
    }
    default:  // an empty batch
      qo = {0};
      kv = {0};
      RC_ASSERT(mentions(refusal(build), "qo_indptr has size 1"));
  }
}

}  // namespace mlacheck::planner_test
