#pragma once
// Host entry points that run one layout launcher on the GPU for the tests: upload the inputs into
// guarded device buffers, poison the outputs, launch on a fresh stream, download, and read every
// buffer's guards back. The tests are plain C++ (GoogleTest does not compile as HIP under
// Debian's clang 15), so the GPU side stays in layout_runs.hip.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/gather_inputs.hpp"
#include "core/mla_inputs.hpp"
#include "device/layout/kv_gather.hpp"
#include "device/layout/page_indices.hpp"
#include "device/platform/canary_report.hpp"

namespace mlacheck::layout::test {

struct IndptrRun {
  std::vector<std::int32_t> indptr;
  CanaryReport canaries;
};
IndptrRun run_lengths_to_indptr(std::span<const std::int32_t> lengths, int unit = 1);

struct ExpandRun {
  std::vector<std::int32_t> kv_indptr;
  std::vector<std::int32_t> kv_indices;
  CanaryReport canaries;
};
// kv_indices is sized for the token form whatever `form`, as the pipeline sizes it.
ExpandRun run_expand_page_indices(const MlaDecodeProblem& p, const MlaDecodeInputs& in,
                                  KvIndexForm form = KvIndexForm::tokens);

enum class HeadCopy { pad_q, unpad_o, unpad_lse };
struct HeadCopyRun {
  std::vector<std::uint8_t> out;
  CanaryReport canaries;
};
// `in` holds the source's bytes; the output has out_bytes bytes.
HeadCopyRun run_head_copy(HeadCopy which, const MlaDecodeProblem& p, std::span<const std::uint8_t> in,
                          std::size_t out_bytes);

struct GatherRun {
  std::vector<std::uint8_t> k;  // [total_tokens, kv_heads, head_size] of out_dtype
  std::vector<std::uint8_t> v;
  KvGatherPlan plan;  // the paths the launch took
  CanaryReport canaries;
};
// cu_seq_lens are built on the device from p.kv_lens (launch_lengths_to_indptr).
GatherRun run_kv_gather(const KvGatherProblem& p, const KvGatherInputs& in);

}  // namespace mlacheck::layout::test
