#pragma once
// The staging's checks of host inputs and its block-table layout, shared by the one-step staging
// and the per-step restage of a decode sequence (mla_decode_restage.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

// "staging of <name>: ", the prefix of the staging's messages.
std::string staging_where(const MlaDecodeProblem& p);

// std::invalid_argument "input <tensor> has <got> elements, the problem needs <want>" unless equal.
void expect_input_elements(const MlaDecodeProblem& p, const char* tensor, std::size_t got, std::size_t want);

// make_inputs' table re-laid into rows of `width` entries (at least max_blocks_per_request(p): a
// sequence's table is as wide as its longest step's), -1 past each request's blocks, every used
// entry checked against the pool's blocks [first_block, num_blocks). std::invalid_argument naming
// the entry, or the stride when `in`'s rows or `width` are shorter than p's longest request.
std::vector<std::int32_t> engine_block_table(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int width);

}  // namespace mlacheck
