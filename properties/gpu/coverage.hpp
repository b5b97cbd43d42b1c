#pragma once
// Coverage of the property space on the GPU: the buckets a case falls in (the corners where
// upstream bugs lived: few heads, non-power-of-two q_len, paged caches, interleaved and SHUFFLE
// gathers, every dtype and path, tensor parallelism), counted per property over the cases that
// were checked and passed, and the check that every bucket a completed property expects received
// a case.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/gather_problem.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

// The buckets of an mla_decode case: its shape ("heads<16", "heads tile-padded", "q_len not a
// power of two", "q_len mixed in a batch", "block_size>1", "TP>1", "padded request (kv_len 0)",
// "splits beyond the tokens" (explicit splits > a request's kv tokens)), its rank's head count ("heads
// 16..63", "heads>=64"; "heads<16" above), its longest request ("kv_len<=16", "kv_len 17..256",
// "kv_len 257..16382", "kv_len>=16383"), its fill profile ("profile=uniform|sink|extreme"), whether
// it is a decode sequence ("sequence: one step", "sequence: join or leave" (a request joins late
// or leaves early), "sequence: fixed batch"), its
// dtypes ("q_dtype=bf16", "kv_dtype=...", "o_dtype=...") and, with `with_path`, the requested path
// ("path=auto", ...); the rare "cache rows past 4 GiB" is counted but expected of no
// property by all_mla_buckets.
std::vector<std::string> mla_buckets(const MlaDecodeProblem& p, bool with_path);
// Every bucket mla_buckets can return: what an mla_decode property expects to cover. Without
// `with_16k`, not the 16k boundary, for a property whose limits draw it too rarely to expect it in
// a default run (the tensor-parallel one: 1% of cases). Without `with_sequences`, not the
// sequence buckets, for a property whose limits draw no sequence (MlaGenLimits::sequence_percent).
std::vector<std::string> all_mla_buckets(bool with_path, bool with_16k = true, bool with_sequences = false);
// Tags the case's shape flags for rapidcheck's distribution (RC_TAG): the joint coverage of the
// boolean buckets, printed after each property. Call only inside a property.
void tag_mla_case(const MlaDecodeProblem& p);

// The buckets of a kv_gather case: "interleaved", "SHUFFLE", "dequantised", "padded strides",
// "layout=...", "cache=contiguous|interleaved", "cache_dtype=...".
std::vector<std::string> gather_buckets(const KvGatherProblem& p);
std::vector<std::string> all_gather_buckets();
void tag_gather_case(const KvGatherProblem& p);

// Bucket counts of every property of this run. Properties run one after another, so it is not
// synchronised.
class CoverageRegistry {
 public:
  // `property` ran to completion: at the end of the run each of `buckets` must have received a
  // case. A property that failed is not checked (its counterexample is the report).
  void expect(const std::string& property, std::vector<std::string> buckets);
  // A case of `property` in `buckets` was checked and passed. With MLACHECK_GPU_PROGRESS_FILE set
  // (a sitting's shard) the cases passed so far over every property are written there.
  void passed(const std::string& property, const std::vector<std::string>& buckets);
  // A case the backend refused (supports() said why): SKIPPED, never counted as covered.
  void refused(const std::string& property, const std::vector<std::string>& buckets, const std::string& reason);
  // One table per completed property: bucket, cases passed, cases refused and why (the commonest
  // reason naming the bucket, else the commonest reason).
  void print(std::ostream& os) const;
  // Machine-readable counts for scripts/gpu-property-sitting.sh, which sums them over processes:
  // per property "cases\t<property>\t<cases passed>", then per bucket it has counts or expects
  // "bucket\t<property>\t<bucket>\t<passed>\t<refused>\t<expected: 1 when the property completed>",
  // properties and buckets in name order.
  void write(std::ostream& os) const;
  // "<property>: <bucket>" for every expected bucket without a case checked and passed: one that
  // received no case, and one whose every case the backend refused (with the reason), since a
  // bucket nothing was checked in is not covered, whatever was drawn into it.
  std::vector<std::string> holes() const;

 private:
  struct Count {
    int passed = 0;
    int refused = 0;
    std::map<std::string, int> reasons;
  };
  struct Property {
    int cases = 0;  // cases checked and passed
    std::vector<std::string> expected;
    std::map<std::string, Count> buckets;
  };
  std::map<std::string, Property> properties_;
  long cases_passed_ = 0;  // over every property
};

CoverageRegistry& coverage();

// At the end of the run (a global environment's TearDown, after every property of the run, however
// tests were filtered or ordered): prints the coverage tables and fails the run for every hole.
// With MLACHECK_GPU_COVERAGE_FILE set (one shard of a sitting, scripts/gpu-property-sitting.sh) it
// writes the counts there instead and leaves the holes to the check over all shards' counts.
class CoverageCheck : public ::testing::Environment {
 public:
  void TearDown() override;
};

}  // namespace mlacheck
