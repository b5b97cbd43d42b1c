#pragma once
// A backend's declared support space (issue 34 item 1): the part of the MLA decode problem space a
// kernel takes. The property sweep draws its cases within it (generators/mla_problem_gen.hpp), so
// a narrow kernel is tested on the cases it runs rather than refusing most of what was drawn; the
// backend's supports() stays the final word on what a space cannot express.
//
// Canonical text (what the C API, the plugin ABI and Python's mlacheck.Space exchange):
//   space:lv_rope=512/64,512/0;dtypes=bf16/bf16/bf16,bf16/fp8_e4m3fn/bf16;heads=16..128;bs=1,16,64;
//         max_q=8;q_over_kv=1;max_pool=0;sequences=1;graph=1
// Every key is optional in parsed text (a missing key allows everything of that field); to_text()
// writes every key, `*` for a field that allows everything, so parse(to_text(s)) == s.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/dtype.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

struct DtypeCombo {
  DType q = DType::bf16;
  DType kv = DType::bf16;
  DType o = DType::bf16;
  bool operator==(const DtypeCombo&) const = default;
};

struct SupportSpace {
  std::vector<std::pair<int, int>> lv_rope;  // allowed (Lv, rope) pairs; empty: any
  std::vector<DtypeCombo> dtypes;            // allowed (q, cache, O) dtypes; empty: any
  // Rank head counts (total_heads / tp): the listed ones, or when head_list is empty the range
  // heads_min..heads_max.
  std::vector<int> head_list;
  int heads_min = 1;
  int heads_max = 1 << 20;
  std::vector<int> block_sizes;  // empty: any
  int max_q_len = 0;             // 0: any
  // Requests whose q_len exceeds their kv_len (a padded request, kv_len 0, is one): the causal
  // rows with no key of their own. False: the sweep draws none.
  bool q_over_kv = true;
  std::int64_t max_pool_bytes = 0;  // the largest cache pool the kernel addresses; 0: any
  bool sequences = true;            // decode sequences (core/mla_sequence.hpp)
  bool graph = true;                // graph capture and replay (Python's graph=True)

  bool operator==(const SupportSpace&) const = default;
};

// Throws std::invalid_argument naming the field ("space field 'heads': ...") for a space that
// allows nothing of a field or holds a value no problem can take.
void validate(const SupportSpace& s);

std::string to_text(const SupportSpace& s);
// Parses canonical text (the "space:" prefix is optional), then validates it. Throws
// std::invalid_argument naming the key and value at fault.
SupportSpace parse_space(std::string_view text);

bool allows_heads(const SupportSpace& s, int rank_heads);
// Whether `p` lies inside the space; when not and `why` is given, the first field it breaks.
bool contains(const SupportSpace& s, const MlaDecodeProblem& p, std::string* why = nullptr);

// The part of the property sweep's problem space (the shapes MLA decode kernels take) the space
// leaves out, as a list a person reads ("Lv 128, 256; fp8 queries; fp8_e4m3fnuz; heads < 16").
// Empty when the space excludes nothing of it.
std::vector<std::string> space_excludes(const SupportSpace& s);
// The list above joined by "; " ("" when nothing is excluded).
std::string space_excludes_text(const SupportSpace& s);

}  // namespace mlacheck
