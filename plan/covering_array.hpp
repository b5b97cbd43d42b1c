#pragma once
// A covering array of strength t: rows assigning a value to every factor such that every
// combination of values of any t factors that is allowed appears in some row. Built greedily and
// deterministically (no randomness): each row starts from the first combination still uncovered,
// then takes, factor by factor, the allowed value that covers the most uncovered combinations
// with the values chosen so far (ties to the lowest value); then rows another row makes redundant
// are dropped, so every row left holds a combination no other row does. Combinations no allowed row can hold
// are reported, never silently dropped.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace mlacheck {

// One combination: `factors` ascending, `values[i]` the value of factors[i].
struct Combination {
  std::vector<int> factors;
  std::vector<int> values;
  bool operator==(const Combination&) const = default;
};

// Whether a partial row (one value per factor, -1 unassigned) is allowed so far: false when the
// values it holds already match an impossible combination.
using RowAllowed = std::function<bool(const std::vector<int>&)>;

// Every combination of `strength` factors' values that `allowed` accepts as a partial row, in
// lexicographic order of factors then values. strength must be in [1, domains.size()].
// `max_strength[f]` (> 0) caps the combinations factor f joins: a set of factors is required at
// the size min(strength, the smallest cap among them), so a factor capped at 2 has every value
// paired with every value of each other factor, and joins no triple (an expensive factor, such as
// a pool past 4 GiB that a host backend stages whole, kept to pairs). Empty or 0: no cap.
std::vector<Combination> required_combinations(const std::vector<int>& domains, int strength, const RowAllowed& allowed,
                                               const std::vector<int>& max_strength = {});

struct CoveringArray {
  std::vector<std::vector<int>> rows;
  std::vector<Combination> unreachable;  // required, but no allowed full row holds it
};

CoveringArray build_covering_array(const std::vector<int>& domains, int strength, const RowAllowed& allowed,
                                   const std::vector<int>& max_strength = {});

// The required combinations none of `rows` holds (a row value -1 holds nothing).
std::vector<Combination> uncovered_combinations(const std::vector<Combination>& required,
                                                const std::vector<std::vector<int>>& rows);
// The index of the first row holding `c`, or -1.
int first_row_covering(const Combination& c, const std::vector<std::vector<int>>& rows);

}  // namespace mlacheck
