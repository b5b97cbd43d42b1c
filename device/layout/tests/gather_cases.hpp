#pragma once
// The kv_gather cases the layout tests share: the device test runs them against the host twin,
// the host test checks their addressing and launch plans.
#include <string>
#include <vector>

#include "core/gather_problem.hpp"

namespace mlacheck::layout::test {

// Extra elements between heads, tokens, blocks and the K/V halves: none, 16 (every vector path
// stays aligned), or 3 (no run of two elements is aligned: the element-wise fallbacks).
enum class Padding { dense, aligned, odd };

struct GatherCase {
  CacheLayout layout = CacheLayout::nhd;
  bool interleaved = false;
  Padding padding = Padding::dense;
  DType cache_dtype = DType::bf16;
  DType out_dtype = DType::bf16;
  int block_size = 16;
  int kv_heads = 2;
  int head_size = 256;
  // Around one 16-token block, a long request and one just past a power of two.
  std::vector<int> kv_lens{1, 2, 15, 16, 17, 1000, 4097};
};

// A test-name-safe description, e.g. "shuffle_interleaved_pad16_fp8_e4m3fn_to_bf16_bs64_h2x256_b7".
std::string case_name(const GatherCase& c);

// The case's problem with its strides written out (padded ones cannot come from with_defaults).
KvGatherProblem gather_problem(const GatherCase& c);

// Every layout x interleave x padding x dtype pair x block size (1, 7, 16, 64, 256) that is valid
// (SHUFFLE needs block sizes that are multiples of x), 2 heads of 256, the kv_lens above.
std::vector<GatherCase> grid_cases();
// Other head counts and sizes: one MLA latent (1 x 576), 8 x 128, and 3 x 36 (NHD only, runs of
// at most 4 channels).
std::vector<GatherCase> shape_cases();
// Many short requests (across the device scan's 256-wide chunks), and more requests than a grid
// has rows (65535), so the kernels' request loops run.
std::vector<GatherCase> batch_cases();

}  // namespace mlacheck::layout::test
