// Metamorphic properties of the MLA oracle: changes to how a problem is stored (block table,
// block size), split (tensor parallelism) or batched (multi-token queries) leave every query
// row's result alone. Edits that keep each request's K matrix identical must give bit-identical
// outputs; edits that change GEMM shapes (and so Eigen's blocking) agree to 1e-12.
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "core/mla_inputs.hpp"
#include "generators/mla_problem_gen.hpp"
#include "properties/support/closeness.hpp"
#include "properties/support/mla_case_edits.hpp"
#include "reference/mla_decode_reference.hpp"

namespace mlacheck {
namespace {

constexpr double kReshapedAgreement = 1e-12;

void assert_identical(const MlaDecodeOutputs<double>& a, const MlaDecodeOutputs<double>& b) {
  RC_ASSERT(a.o == b.o);
  RC_ASSERT(a.lse == b.lse);
}

void assert_close(const MlaDecodeOutputs<double>& actual, const MlaDecodeOutputs<double>& expected) {
  RC_ASSERT(max_norm_relative_error(actual.o, expected.o) <= kReshapedAgreement);
  RC_ASSERT(max_norm_relative_error(actual.lse, expected.lse, 1.0) <= kReshapedAgreement);
}

RC_GTEST_PROP(MlaMetamorphic, QueryRowEqualsSingleTokenDecodeOfItsPrefix, (const MlaDecodeProblem& p)) {
  RC_PRE(max_q_len(p) > 1);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaCase rows = single_token_requests(p, in);
  assert_close(mla_decode_reference(rows.problem, rows.inputs), mla_decode_reference(p, in));
  RC_TAG(max_q_len(p));
}

RC_GTEST_PROP(MlaMetamorphic, OutputsIgnoreWhereTheBlocksLie, (const MlaDecodeProblem& p, std::uint64_t table_seed)) {
  const MlaDecodeInputs in = make_inputs(p);
  const MlaCase moved = repage(p, in, p.block_size, table_seed);
  assert_identical(mla_decode_reference(moved.problem, moved.inputs), mla_decode_reference(p, in));
  RC_CLASSIFY(moved.inputs.block_table != in.block_table, "table changed");
}

RC_GTEST_PROP(MlaMetamorphic, OutputsIgnoreTheBlockSize, (const MlaDecodeProblem& p, std::uint64_t table_seed)) {
  const int block_size = *rc::gen::distinctFrom(rc::gen::oneOf(rc::gen::element(1, 16, 64), rc::gen::inRange(1, 129)),
                                                p.block_size);
  const MlaDecodeInputs in = make_inputs(p);
  const MlaCase repaged = repage(p, in, block_size, table_seed);
  assert_identical(mla_decode_reference(repaged.problem, repaged.inputs), mla_decode_reference(p, in));
}

RC_GTEST_PROP(MlaMetamorphic, TensorParallelShardsConcatenateToTheModel, (const MlaDecodeProblem& p)) {
  RC_PRE(p.tp > 1);
  const MlaDecodeProblem model = unsharded(p);
  const auto whole = mla_decode_reference(model, make_inputs(model));

  // Each rank's [tokens, heads, .] output lands at heads [rank*heads, (rank+1)*heads) of the model's.
  const auto h = static_cast<std::size_t>(heads(p));
  const auto lv = static_cast<std::size_t>(p.kv_lora_rank);
  const auto tokens = static_cast<std::size_t>(total_q_tokens(p));
  MlaDecodeOutputs<double> joined{std::vector<double>(whole.o.size()), std::vector<double>(whole.lse.size())};
  for (int rank = 0; rank < p.tp; ++rank) {
    MlaDecodeProblem shard = p;
    shard.tp_rank = rank;
    const auto out = mla_decode_reference(shard, make_inputs(shard));
    for (std::size_t t = 0; t < tokens; ++t) {
      const std::size_t at = t * static_cast<std::size_t>(p.total_heads) + static_cast<std::size_t>(rank) * h;
      std::copy_n(out.o.begin() + static_cast<std::ptrdiff_t>(t * h * lv), h * lv,
                  joined.o.begin() + static_cast<std::ptrdiff_t>(at * lv));
      std::copy_n(out.lse.begin() + static_cast<std::ptrdiff_t>(t * h), h,
                  joined.lse.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  assert_close(joined, whole);
  RC_TAG(p.tp);
}

}  // namespace
}  // namespace mlacheck
