#pragma once
// Planner inputs for the properties: maxima the buffers are sized for, and one batch within them.
// Sizes follow the kernel's geometry (STYLE.md 11): CU counts of real devices, head counts that
// give every q tile width, kv lengths at granule edges and up to 16384, and few CUs against long
// sequences so that tiles split often.
#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <utility>
#include <vector>

#include "device/planner/metadata.hpp"
#include "device/planner/plan_walk.hpp"

namespace mlacheck::planner_test {

struct PlannerCase {
  int num_cus = 1;
  int padded_heads = 16;
  int max_batch = 1;
  int max_q_len = 1;
  std::vector<int> q_lens;   // within max_q_len
  std::vector<int> kv_lens;  // >= q_len or 0 (a padded request), <= 16384

  MetadataInfo info() const { return metadata_info(max_batch, max_q_len, padded_heads, num_cus); }
  std::vector<std::int32_t> qo_indptr() const;
  std::vector<std::int32_t> kv_indptr() const;
};

std::ostream& operator<<(std::ostream& os, const PlannerCase& c);

inline std::vector<std::int32_t> prefix_sums(const std::vector<int>& lens) {
  std::vector<std::int32_t> out{0};
  for (int n : lens) out.push_back(out.back() + n);
  return out;
}
inline std::vector<std::int32_t> PlannerCase::qo_indptr() const { return prefix_sums(q_lens); }
inline std::vector<std::int32_t> PlannerCase::kv_indptr() const { return prefix_sums(kv_lens); }

inline std::ostream& operator<<(std::ostream& os, const PlannerCase& c) {
  os << "num_cus=" << c.num_cus << " padded_heads=" << c.padded_heads << " max_batch=" << c.max_batch
     << " max_q_len=" << c.max_q_len << "\n  q_lens=";
  for (int q : c.q_lens) os << q << ' ';
  os << "\n  kv_lens=";
  for (int kv : c.kv_lens) os << kv << ' ';
  return os;
}

inline rc::Gen<int> gen_num_cus() {
  return rc::gen::weightedOneOf<int>({{3, rc::gen::element(1, 2, 3, 4, 7, 8)},
                                      {2, rc::gen::element(80, 104, 108, 110, 132, 228, 304)},
                                      {2, rc::gen::inRange(1, 321)}});
}

// Multiples of 16 as padding produces them, and now and then any count (a caller may pass an
// unpadded one: the planner must still produce a sound plan for the count it is given).
inline rc::Gen<int> gen_padded_heads() {
  return rc::gen::weightedOneOf<int>({{6, rc::gen::element(16, 32, 48, 64, 128, 256)}, {1, rc::gen::inRange(1, 300)}});
}

// Now and then 0: a padded request (CUDA-graph padding), whatever its q_len.
inline rc::Gen<int> gen_kv_len(int q_len) {
  return rc::gen::weightedOneOf<int>(
      {{1, rc::gen::just(0)},
       {3, rc::gen::inRange(q_len, 16385)},
       {2, rc::gen::inRange(q_len, q_len + 80)},
       {2, rc::gen::map(rc::gen::element(1, 15, 16, 17, 31, 32, 33, 255, 256, 257, 4096, 16383, 16384),
                        [q_len](int kv) { return std::max(kv, q_len); })}});
}

// A batch within the given maxima; full batches and maximal q_len come up often.
inline rc::Gen<PlannerCase> gen_batch_within(int num_cus, int padded_heads, int max_batch, int max_q_len) {
  return rc::gen::exec([=] {
    PlannerCase c{num_cus, padded_heads, max_batch, max_q_len, {}, {}};
    const int batch =
        *rc::gen::weightedOneOf<int>({{1, rc::gen::just(max_batch)}, {2, rc::gen::inRange(1, max_batch + 1)}});
    for (int b = 0; b < batch; ++b) {
      const int q_len =
          *rc::gen::weightedOneOf<int>({{1, rc::gen::just(max_q_len)}, {2, rc::gen::inRange(1, max_q_len + 1)}});
      c.q_lens.push_back(q_len);
      c.kv_lens.push_back(*gen_kv_len(q_len));
    }
    return c;
  });
}

inline rc::Gen<PlannerCase> gen_planner_case() {
  return rc::gen::exec([] {
    const int max_batch = *rc::gen::weightedOneOf<int>({{4, rc::gen::inRange(1, 17)}, {1, rc::gen::inRange(17, 257)}});
    return *gen_batch_within(*gen_num_cus(), *gen_padded_heads(), max_batch, *rc::gen::inRange(1, 17));
  });
}

// A case planned into buffers sized for its maxima, and the twin's walk of the plan.
struct Planned {
  MetadataInfo info;
  HostMetadata buffers;
  MetadataHeader header{};
  PlanWalk walk;
};

inline Planned plan(const PlannerCase& c) {
  Planned p{c.info(), {}, {}, {}};
  p.buffers = allocate_metadata(p.info);
  const auto qo = c.qo_indptr();
  const auto kv = c.kv_indptr();
  p.header = build_metadata(qo, kv, p.info, view(p.buffers));
  p.walk = walk_plan(view(std::as_const(p.buffers)), qo, kv, c.padded_heads);
  return p;
}

}  // namespace mlacheck::planner_test
