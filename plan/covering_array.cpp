#include "plan/covering_array.hpp"

#include <algorithm>
#include <stdexcept>

namespace mlacheck {

namespace {

// Every subset of `strength` factors out of n, lexicographic.
std::vector<std::vector<int>> factor_subsets(int n, int strength) {
  std::vector<std::vector<int>> out;
  std::vector<int> s(static_cast<std::size_t>(strength));
  for (int i = 0; i < strength; ++i) s[static_cast<std::size_t>(i)] = i;
  while (true) {
    out.push_back(s);
    int i = strength - 1;
    while (i >= 0 && s[static_cast<std::size_t>(i)] == n - strength + i) --i;
    if (i < 0) return out;
    ++s[static_cast<std::size_t>(i)];
    for (int j = i + 1; j < strength; ++j) s[static_cast<std::size_t>(j)] = s[static_cast<std::size_t>(j - 1)] + 1;
  }
}

bool holds(const Combination& c, const std::vector<int>& row) {
  for (std::size_t i = 0; i < c.factors.size(); ++i) {
    if (row[static_cast<std::size_t>(c.factors[i])] != c.values[i]) return false;
  }
  return true;
}

// The combinations still to cover, with which factor subsets hold each factor, so a value's gain
// is counted over the subsets it completes only.
class Uncovered {
 public:
  Uncovered(const std::vector<int>& domains, const std::vector<Combination>& required) : domains_(domains) {
    for (const Combination& c : required) {
      const auto it = std::find(subsets_.begin(), subsets_.end(), c.factors);
      std::size_t s = static_cast<std::size_t>(it - subsets_.begin());
      if (it == subsets_.end()) {
        subsets_.push_back(c.factors);
        std::size_t cells = 1;
        for (int f : c.factors) cells *= static_cast<std::size_t>(domains[static_cast<std::size_t>(f)]);
        open_.emplace_back(cells, 0);
      }
      open_[s][cell(s, c.values)] = 1;
      ++left_;
    }
  }
  int left() const { return left_; }
  // Uncovered combinations the row holds among subsets whose factors it has all assigned, one of
  // them `factor`.
  int gain(const std::vector<int>& row, int factor) const {
    int g = 0;
    for (std::size_t s = 0; s < subsets_.size(); ++s) {
      const auto& fs = subsets_[s];
      if (std::find(fs.begin(), fs.end(), factor) == fs.end()) continue;
      if (std::any_of(fs.begin(), fs.end(), [&](int f) { return row[static_cast<std::size_t>(f)] < 0; })) continue;
      g += open_[s][cell_of_row(s, row)];
    }
    return g;
  }
  void cover(const std::vector<int>& row) {
    for (std::size_t s = 0; s < subsets_.size(); ++s) {
      char& c = open_[s][cell_of_row(s, row)];
      left_ -= c;
      c = 0;
    }
  }
  void drop(const Combination& c) {
    const std::size_t s = static_cast<std::size_t>(std::find(subsets_.begin(), subsets_.end(), c.factors) - subsets_.begin());
    char& cellref = open_[s][cell(s, c.values)];
    left_ -= cellref;
    cellref = 0;
  }
  bool open(const Combination& c) const {
    const std::size_t s = static_cast<std::size_t>(std::find(subsets_.begin(), subsets_.end(), c.factors) - subsets_.begin());
    return s < subsets_.size() && open_[s][cell(s, c.values)] != 0;
  }

 private:
  std::size_t cell(std::size_t s, const std::vector<int>& values) const {
    std::size_t at = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      at = at * static_cast<std::size_t>(domains_[static_cast<std::size_t>(subsets_[s][i])]) + static_cast<std::size_t>(values[i]);
    }
    return at;
  }
  std::size_t cell_of_row(std::size_t s, const std::vector<int>& row) const {
    std::vector<int> values;
    for (int f : subsets_[s]) values.push_back(row[static_cast<std::size_t>(f)]);
    return cell(s, values);
  }
  std::vector<int> domains_;
  std::vector<std::vector<int>> subsets_;
  std::vector<std::vector<char>> open_;
  int left_ = 0;
};

// Completes `row` from factor `next` on, each factor taking its allowed values best gain first;
// backtracks when a factor has none. False when no allowed completion exists.
bool complete(std::vector<int>& row, const std::vector<int>& domains, const RowAllowed& allowed, const Uncovered& open,
              std::size_t next) {
  while (next < row.size() && row[next] >= 0) ++next;
  if (next == row.size()) return true;
  const int f = static_cast<int>(next);
  std::vector<std::pair<int, int>> ranked;  // (-gain, value): best gain, then lowest value, first
  for (int v = 0; v < domains[next]; ++v) {
    row[next] = v;
    if (allowed(row)) ranked.emplace_back(-open.gain(row, f), v);
  }
  std::sort(ranked.begin(), ranked.end());
  for (const auto& [g, v] : ranked) {
    row[next] = v;
    if (complete(row, domains, allowed, open, next + 1)) return true;
  }
  row[next] = -1;
  return false;
}

// Rows built later may hold every combination an earlier row was built for: drop, first to last,
// each row whose every required combination another kept row holds too, so every row left is
// needed (and the array is smaller).
void drop_redundant_rows(std::vector<std::vector<int>>& rows, const std::vector<Combination>& required) {
  std::vector<std::vector<std::size_t>> held(rows.size());  // required combinations each row holds
  std::vector<int> holders(required.size(), 0);
  for (std::size_t c = 0; c < required.size(); ++c) {
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (holds(required[c], rows[r])) {
        held[r].push_back(c);
        ++holders[c];
      }
    }
  }
  std::vector<std::vector<int>> kept;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const bool needed = std::any_of(held[r].begin(), held[r].end(), [&](std::size_t c) { return holders[c] == 1; });
    if (needed) {
      kept.push_back(std::move(rows[r]));
    } else {
      for (std::size_t c : held[r]) --holders[c];
    }
  }
  rows = std::move(kept);
}

}  // namespace

std::vector<Combination> required_combinations(const std::vector<int>& domains, int strength, const RowAllowed& allowed,
                                               const std::vector<int>& max_strength) {
  const int n = static_cast<int>(domains.size());
  if (strength < 1 || strength > n) {
    throw std::invalid_argument("covering array strength " + std::to_string(strength) + " must be in [1, " +
                                std::to_string(n) + "] (the number of factors)");
  }
  if (!max_strength.empty() && max_strength.size() != domains.size()) {
    throw std::invalid_argument("covering array: " + std::to_string(max_strength.size()) + " strength caps for " +
                                std::to_string(n) + " factors");
  }
  // The size a set of factors is required at: the array's strength, or less for a capped member.
  const auto required_size = [&](const std::vector<int>& fs) {
    int size = strength;
    for (int f : fs) {
      const int cap = max_strength.empty() ? 0 : max_strength[static_cast<std::size_t>(f)];
      if (cap > 0) size = std::min(size, cap);
    }
    return size;
  };
  std::vector<std::vector<int>> subsets;
  for (int k = 1; k <= strength; ++k) {
    for (std::vector<int>& fs : factor_subsets(n, k)) {
      if (required_size(fs) == k) subsets.push_back(std::move(fs));
    }
  }
  std::vector<Combination> out;
  for (const std::vector<int>& fs : subsets) {
    std::vector<int> values(fs.size(), 0);
    while (true) {
      std::vector<int> row(domains.size(), -1);
      for (std::size_t i = 0; i < fs.size(); ++i) row[static_cast<std::size_t>(fs[i])] = values[i];
      if (allowed(row)) out.push_back({fs, values});
      std::size_t i = fs.size();
      while (i > 0 && ++values[i - 1] == domains[static_cast<std::size_t>(fs[i - 1])]) values[--i] = 0;
      if (i == 0) break;
    }
  }
  return out;
}

CoveringArray build_covering_array(const std::vector<int>& domains, int strength, const RowAllowed& allowed,
                                   const std::vector<int>& max_strength) {
  const std::vector<Combination> required = required_combinations(domains, strength, allowed, max_strength);
  Uncovered open(domains, required);
  CoveringArray out;
  std::size_t seed = 0;  // required combinations before this one are covered or unreachable
  while (open.left() > 0) {
    while (!open.open(required[seed])) ++seed;
    const Combination& c = required[seed];
    std::vector<int> row(domains.size(), -1);
    for (std::size_t i = 0; i < c.factors.size(); ++i) row[static_cast<std::size_t>(c.factors[i])] = c.values[i];
    if (complete(row, domains, allowed, open, 0)) {
      open.cover(row);
      out.rows.push_back(std::move(row));
    } else {
      out.unreachable.push_back(c);
      open.drop(c);
    }
  }
  drop_redundant_rows(out.rows, required);
  return out;
}

std::vector<Combination> uncovered_combinations(const std::vector<Combination>& required,
                                                const std::vector<std::vector<int>>& rows) {
  std::vector<Combination> out;
  for (const Combination& c : required) {
    if (first_row_covering(c, rows) < 0) out.push_back(c);
  }
  return out;
}

int first_row_covering(const Combination& c, const std::vector<std::vector<int>>& rows) {
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (holds(c, rows[r])) return static_cast<int>(r);
  }
  return -1;
}

}  // namespace mlacheck
