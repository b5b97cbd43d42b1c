#pragma once
// The production factors of mla_decode as data (plan/production_factors.csv): each factor's
// values with their provenance, and the value combinations no valid case has
// (plan/impossible_combinations.csv). The factor names and what each value means for a descriptor
// are fixed here: `classify` reads a case's values off its descriptor, so coverage is measured on
// the cases a plan really holds, whoever built them.
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

// The factors, in table order. A case's value of each (classify):
//   heads        per-rank query heads, a decimal count
//   q_dtype, kv_dtype, o_dtype   dtype names (core/dtype.hpp)
//   q_len        "1", "2-4", "5-8", ">8" when every request has the same q_len, else "mixed"
//   block_size   "1", "16", "64" or "other"
//   latent       "Lv/rope", e.g. 512/64
//   path         auto, split_kv or persistent
//   padded_rows  yes when a request is padding (kv_len 0 at every step), else no
//   past_4gib    yes when every row read lies 2^32 bytes or more past the pool's base
//   sequence     yes for a decode sequence (steps > 1)
inline constexpr std::array<std::string_view, 11> kFactorNames = {
    "heads", "q_dtype", "kv_dtype", "o_dtype", "q_len", "block_size", "latent", "path", "padded_rows", "past_4gib", "sequence"};

struct FactorValue {
  std::string value;
  std::vector<std::string> provenance;  // "model [TP n]: source" of each row naming the value
  std::string source;                   // file:line of its first row
  int model_tp = 1;                     // heads: the TP degree of the value's first row
};

struct Factor {
  std::string name;
  std::vector<FactorValue> values;  // in table order, each once
  // The largest combination of factors this one joins in the covering array (the table's
  // max_strength column; 0: any). plan/covering_array.hpp says how a cap shapes the array.
  int max_strength = 0;
};

// One term of an impossible combination: factor == value (or != with negated).
struct FactorTerm {
  int factor = 0;
  int value = 0;
  bool negated = false;
};

struct ImpossibleCombination {
  std::vector<FactorTerm> terms;  // all must hold
  std::string text;               // as written
  std::string reason;
  std::string source;             // file:line
};

struct FactorTable {
  std::vector<Factor> factors;  // kFactorNames order, every one present
  std::vector<ImpossibleCombination> impossible;

  // Whether the (partial) assignment, one value index per factor or -1 for unassigned, matches
  // an impossible combination whose every term's factor is assigned; the first such, or nullptr.
  const ImpossibleCombination* excluded_by(const std::vector<int>& values) const;
  // A value's index in factor `factor`, or -1.
  int value_index(int factor, std::string_view value) const;
};

// Reads both tables. Throws scenarios::TableError naming file, line and column for an unknown
// factor, a value that factor cannot take, a repeated value given another TP, a factor without
// values, a combination term naming an unknown factor or value.
FactorTable load_factor_table(const std::string& factors_file, const std::string& impossible_file);

// The case's value of each factor as an index into the table's values, -1 where the case's value
// is none the table lists.
std::vector<int> classify(const FactorTable& table, const MlaDecodeProblem& p);
// The case's value of factor `factor` in the table's terms (whether or not the table lists it).
std::string factor_value(int factor, const MlaDecodeProblem& p);

}  // namespace mlacheck
