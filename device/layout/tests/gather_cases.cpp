#include "device/layout/tests/gather_cases.hpp"

#include <cstddef>
#include <stdexcept>
#include <utility>

namespace mlacheck::layout::test {

namespace {

bool valid(const GatherCase& c) {
  try {
    validate(gather_problem(c));
    return true;
  } catch (const std::invalid_argument&) {
    return false;  // SHUFFLE with a block or head size that is not a multiple of x
  }
}

std::vector<GatherCase> valid_only(std::vector<GatherCase> cases) {
  std::erase_if(cases, [](const GatherCase& c) { return !valid(c); });
  return cases;
}

struct DTypePair {
  DType cache;
  DType out;
};
const DTypePair kDTypePairs[] = {
    {DType::bf16, DType::bf16},
    {DType::f16, DType::f16},
    {DType::fp8_e4m3fn, DType::fp8_e4m3fn},
    {DType::fp8_e4m3fnuz, DType::fp8_e4m3fnuz},
    {DType::fp8_e4m3fn, DType::bf16},
    {DType::fp8_e4m3fn, DType::f16},
    {DType::fp8_e4m3fnuz, DType::bf16},
    {DType::fp8_e4m3fnuz, DType::f16},
};

}  // namespace

std::string case_name(const GatherCase& c) {
  const char* padding[] = {"dense", "pad16", "pad3"};
  std::string name = std::string(to_string(c.layout)) + (c.interleaved ? "_interleaved_" : "_contiguous_") +
                     padding[static_cast<int>(c.padding)] + "_" + std::string(to_string(c.cache_dtype));
  if (c.out_dtype != c.cache_dtype) name += "_to_" + std::string(to_string(c.out_dtype));
  return name + "_bs" + std::to_string(c.block_size) + "_h" + std::to_string(c.kv_heads) + "x" +
         std::to_string(c.head_size) + "_b" + std::to_string(c.kv_lens.size());
}

KvGatherProblem gather_problem(const GatherCase& c) {
  KvGatherProblem p;
  p.name = "gather";
  p.layout = c.layout;
  p.interleaved = c.interleaved;
  p.num_kv_heads = c.kv_heads;
  p.head_size = c.head_size;
  p.block_size = c.block_size;
  p.kv_lens = c.kv_lens;
  p.cache_dtype = c.cache_dtype;
  p.out_dtype = c.out_dtype;
  if (dequantises(p)) {
    // Not powers of two, so code * scale really rounds to the output type.
    p.k_scale = 0.0173f;
    p.v_scale = 0.37f;
  }
  p = with_defaults(p);
  if (c.padding == Padding::dense) return p;
  const std::int64_t pad = c.padding == Padding::aligned ? 16 : 3;
  std::int64_t hidden = 0;  // one block's K (or V), padding included
  if (c.layout == CacheLayout::nhd) {
    p.head_stride = c.head_size + pad;
    p.token_stride = c.kv_heads * p.head_stride + pad;
    hidden = c.block_size * p.token_stride + pad;
  } else {
    p.head_stride = static_cast<std::int64_t>(c.block_size) * c.head_size + pad;
    hidden = c.kv_heads * p.head_stride + pad;
  }
  p.block_stride = c.interleaved ? 2 * hidden + pad : hidden;
  p.kv_stride = c.interleaved ? hidden : p.num_blocks * p.block_stride + pad;
  return p;
}

std::vector<GatherCase> grid_cases() {
  std::vector<GatherCase> cases;
  for (CacheLayout layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
    for (bool interleaved : {false, true}) {
      for (Padding padding : {Padding::dense, Padding::aligned, Padding::odd}) {
        for (DTypePair dtypes : kDTypePairs) {
          for (int block_size : {1, 7, 16, 64, 256}) {
            GatherCase c;
            c.layout = layout;
            c.interleaved = interleaved;
            c.padding = padding;
            c.cache_dtype = dtypes.cache;
            c.out_dtype = dtypes.out;
            c.block_size = block_size;
            cases.push_back(c);
          }
        }
      }
    }
  }
  return valid_only(cases);
}

std::vector<GatherCase> shape_cases() {
  std::vector<GatherCase> cases;
  for (auto [kv_heads, head_size] : {std::pair{1, 576}, std::pair{8, 128}, std::pair{3, 36}}) {
    for (CacheLayout layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
      for (bool interleaved : {false, true}) {
        for (DTypePair dtypes : {kDTypePairs[0], kDTypePairs[3], kDTypePairs[4]}) {
          GatherCase c;
          c.layout = layout;
          c.interleaved = interleaved;
          c.cache_dtype = dtypes.cache;
          c.out_dtype = dtypes.out;
          c.kv_heads = kv_heads;
          c.head_size = head_size;
          c.kv_lens = {1, 17, 100, 300};
          cases.push_back(c);
        }
      }
    }
  }
  return valid_only(cases);
}

std::vector<GatherCase> batch_cases() {
  std::vector<GatherCase> cases;
  GatherCase many;
  many.kv_lens.resize(300);
  for (std::size_t i = 0; i < many.kv_lens.size(); ++i) many.kv_lens[i] = static_cast<int>(i * 13 % 50) + 1;
  GatherCase beyond_rows;
  beyond_rows.kv_heads = 1;
  beyond_rows.head_size = 16;
  beyond_rows.block_size = 16;
  beyond_rows.kv_lens.resize(65536);
  for (std::size_t i = 0; i < beyond_rows.kv_lens.size(); ++i) beyond_rows.kv_lens[i] = static_cast<int>(i % 2) + 1;
  for (const GatherCase& base : {many, beyond_rows}) {
    for (CacheLayout layout : {CacheLayout::nhd, CacheLayout::shuffle}) {
      for (DTypePair dtypes : {kDTypePairs[0], kDTypePairs[7]}) {
        GatherCase c = base;
        c.layout = layout;
        c.interleaved = true;
        c.cache_dtype = dtypes.cache;
        c.out_dtype = dtypes.out;
        cases.push_back(c);
      }
    }
  }
  return valid_only(cases);
}

}  // namespace mlacheck::layout::test
