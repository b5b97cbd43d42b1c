// The block slots a persistent plan is sized for (persistent_block_slots): the runtime's occupancy
// of the kernel instance a shape's row groups take, which must be the blocks per CU the row-tile
// policy promises the planners (two one-tile blocks per SM on Hopper: 128 registers and 111 KB
// each; one block of more row tiles).
#include <gtest/gtest.h>

#include <vector>

#include "core/mla_problem.hpp"
#include "device/kernels/split_kv_decode.hpp"
#include "device/persistent/persistent_decode.hpp"
#include "device/persistent/persistent_shape.hpp"
#include "device/platform/device_info.hpp"
#include "device/tests/requires_device.hpp"

namespace mlacheck::kernels {
namespace {

using PersistentSlotsTest = RequiresDevice;

MlaDecodeProblem problem(int heads, int q_len) {
  MlaDecodeProblem p;
  p.total_heads = heads;
  p.kv_lens = std::vector<int>(4, 4096);
  p.q_lens = std::vector<int>(4, q_len);
  return with_defaults(p);
}

int slots(int heads, int q_len) {
  const MlaDecodeProblem p = problem(heads, q_len);
  return persistent_block_slots(persistent_shape(p), max_q_len(p), device_info().compute_units);
}

TEST_F(PersistentSlotsTest, OneTileBlocksShareACuAsThePolicySays) {
  const int cus = device_info().compute_units;
  const RowTilePolicy policy = split_kv_row_tile_policy(DType::bf16, DType::bf16);
  EXPECT_EQ(slots(16, 1), cus * policy.one_tile_blocks_per_cu);
  EXPECT_EQ(slots(8, 1), cus * policy.one_tile_blocks_per_cu);  // padded to one tile of 16
}

TEST_F(PersistentSlotsTest, BlocksOfMoreRowTilesHoldAnSmAlone) {
  const int cus = device_info().compute_units;
  const int max_tiles = split_kv_row_tile_policy(DType::bf16, DType::bf16).max_row_tiles;
  if (max_tiles < 4) GTEST_SKIP() << "this GPU's kernels hold " << max_tiles << " row tile(s) per block";
  EXPECT_EQ(slots(32, 1), cus);   // two row tiles
  EXPECT_EQ(slots(64, 1), cus);   // four
  EXPECT_EQ(slots(128, 1), cus);  // four, two head groups walked one after the other
  EXPECT_EQ(slots(16, 8), cus);   // four tokens of 16 heads per group
}

}  // namespace
}  // namespace mlacheck::kernels
