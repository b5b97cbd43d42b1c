#include "core/element_names.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace mlacheck {

namespace {

// A tensor [rows, heads, channels] (channels 0: [rows, heads]) whose rows are the tokens of the
// requests in order, request r's starting at row_starts[r] (row_starts ends with the row count).
ElementNamer token_rows(std::vector<int> row_starts, std::string token_word, int heads, int channels) {
  return [row_starts = std::move(row_starts), token_word = std::move(token_word), heads,
          channels](std::size_t index) {
    const std::size_t per_row = static_cast<std::size_t>(heads) * static_cast<std::size_t>(std::max(channels, 1));
    const std::size_t row = index / per_row;
    // The last request whose first row is at or before `row` (requests without tokens are skipped).
    const auto next = std::upper_bound(row_starts.begin(), row_starts.end(), static_cast<int>(row));
    const std::size_t request = static_cast<std::size_t>(next - row_starts.begin()) - 1;
    const std::size_t token = row - static_cast<std::size_t>(row_starts[request]);
    std::string out = "request " + std::to_string(request) + ", " + token_word + " " + std::to_string(token);
    if (channels > 0) {
      out += ", head " + std::to_string((index / static_cast<std::size_t>(channels)) % static_cast<std::size_t>(heads)) +
             ", channel " + std::to_string(index % static_cast<std::size_t>(channels));
    } else {
      out += ", head " + std::to_string(index % static_cast<std::size_t>(heads));
    }
    return out;
  };
}

}  // namespace

ElementNamer mla_o_element_names(const MlaDecodeProblem& p) {
  return token_rows(qo_indptr(p), "query token", heads(p), p.kv_lora_rank);
}

ElementNamer mla_lse_element_names(const MlaDecodeProblem& p) {
  return token_rows(qo_indptr(p), "query token", heads(p), 0);
}

ElementNamer kv_gather_element_names(const KvGatherProblem& p) {
  return token_rows(cu_seq_lens(p), "token", p.num_kv_heads, p.head_size);
}

}  // namespace mlacheck
