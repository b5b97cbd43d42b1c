#include "core/support_space.hpp"

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace mlacheck {

namespace {

[[noreturn]] void bad(std::string_view field, const std::string& what) {
  throw std::invalid_argument("space field '" + std::string(field) + "': " + what);
}

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == sep) {
      out.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::int64_t parse_int(std::string_view field, std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) {
    bad(field, "'" + std::string(text) + "' is not an integer");
  }
  return v;
}

int parse_small(std::string_view field, std::string_view text) {
  const std::int64_t v = parse_int(field, text);
  if (v < -(1 << 30) || v > (1 << 30)) bad(field, std::string(text) + " is out of range");
  return static_cast<int>(v);
}

bool parse_flag(std::string_view field, std::string_view text) {
  if (text == "1") return true;
  if (text == "0") return false;
  bad(field, "'" + std::string(text) + "' is not 0 or 1");
}

DType parse_dtype_in(std::string_view field, std::string_view text) {
  const auto t = parse_dtype(text);
  if (!t) bad(field, "'" + std::string(text) + "' is no dtype (f32, bf16, f16, fp8_e4m3fn, fp8_e4m3fnuz)");
  return *t;
}

std::vector<int> parse_int_list(std::string_view field, std::string_view text) {
  std::vector<int> out;
  for (std::string_view v : split(text, ',')) out.push_back(parse_small(field, v));
  return out;
}

template <class T, class Print>
std::string join(const std::vector<T>& values, Print print, std::string_view sep = ",") {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) out += (i == 0 ? "" : std::string(sep)) + print(values[i]);
  return out;
}

std::string int_text(int v) { return std::to_string(v); }

template <class T>
bool has(const std::vector<T>& values, const T& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

// The shapes the property sweep draws without a space (generators' device_shapes_only): the
// reference a space's exclusions are listed against.
constexpr int kModelLvs[] = {128, 256, 512};
constexpr int kRopes[] = {0, 16, 32, 48, 64};
constexpr DType kSixteenBit[] = {DType::bf16, DType::f16};
constexpr DType kCacheDtypes[] = {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz};
constexpr int kSweepMaxQLen = 8;
constexpr int kSweepMaxRankHeads = 128;

}  // namespace

void validate(const SupportSpace& s) {
  std::set<std::pair<int, int>> pairs;
  for (const auto& [lv, rope] : s.lv_rope) {
    if (lv < 1 || lv > 4096) bad("lv_rope", "Lv " + std::to_string(lv) + " is outside 1..4096");
    if (rope < 0 || rope > 4096) bad("lv_rope", "rope " + std::to_string(rope) + " is outside 0..4096");
    if (!pairs.insert({lv, rope}).second) {
      bad("lv_rope", std::to_string(lv) + "/" + std::to_string(rope) + " appears twice");
    }
  }
  for (const DtypeCombo& c : s.dtypes) {
    const std::string text = std::string(to_string(c.q)) + "/" + std::string(to_string(c.kv)) + "/" +
                             std::string(to_string(c.o));
    if (is_fp8(c.o)) bad("dtypes", text + ": O cannot be fp8");
    if (is_fp8(c.q) && c.kv != c.q) bad("dtypes", text + ": fp8 queries go only with a cache of their own fp8 type");
    if (std::count(s.dtypes.begin(), s.dtypes.end(), c) > 1) bad("dtypes", text + " appears twice");
  }
  if (s.head_list.empty()) {
    if (s.heads_min < 1) bad("heads", "the smallest head count " + std::to_string(s.heads_min) + " is below 1");
    if (s.heads_max < s.heads_min) {
      bad("heads", "the range " + std::to_string(s.heads_min) + ".." + std::to_string(s.heads_max) + " is empty");
    }
  }
  for (int h : s.head_list) {
    if (h < 1) bad("heads", "head count " + std::to_string(h) + " is below 1");
  }
  for (int b : s.block_sizes) {
    if (b < 1) bad("bs", "block size " + std::to_string(b) + " is below 1");
  }
  if (s.max_q_len < 0) bad("max_q", std::to_string(s.max_q_len) + " is negative");
  if (s.max_pool_bytes < 0) bad("max_pool", std::to_string(s.max_pool_bytes) + " is negative");
}

std::string to_text(const SupportSpace& s) {
  const auto star_or = [](bool any, const std::string& text) { return any ? std::string("*") : text; };
  std::string heads;
  if (!s.head_list.empty()) {
    heads = join(s.head_list, int_text);
  } else {
    heads = std::to_string(s.heads_min) + ".." + std::to_string(s.heads_max);
  }
  return "space:lv_rope=" +
         star_or(s.lv_rope.empty(), join(s.lv_rope,
                                         [](const std::pair<int, int>& p) {
                                           return std::to_string(p.first) + "/" + std::to_string(p.second);
                                         })) +
         ";dtypes=" +
         star_or(s.dtypes.empty(), join(s.dtypes,
                                        [](const DtypeCombo& c) {
                                          return std::string(to_string(c.q)) + "/" + std::string(to_string(c.kv)) +
                                                 "/" + std::string(to_string(c.o));
                                        })) +
         ";heads=" + heads + ";bs=" + star_or(s.block_sizes.empty(), join(s.block_sizes, int_text)) +
         ";max_q=" + star_or(s.max_q_len == 0, std::to_string(s.max_q_len)) +
         ";q_over_kv=" + (s.q_over_kv ? "1" : "0") +
         ";max_pool=" + star_or(s.max_pool_bytes == 0, std::to_string(s.max_pool_bytes)) +
         ";sequences=" + (s.sequences ? "1" : "0") + ";graph=" + (s.graph ? "1" : "0");
}

SupportSpace parse_space(std::string_view text) {
  constexpr std::string_view kPrefix = "space:";
  if (text.starts_with(kPrefix)) text.remove_prefix(kPrefix.size());
  SupportSpace s;
  std::set<std::string, std::less<>> seen;
  if (text.empty()) return s;
  for (std::string_view item : split(text, ';')) {
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      throw std::invalid_argument("space: '" + std::string(item) + "' is not key=value");
    }
    const std::string_view key = item.substr(0, eq);
    const std::string_view value = item.substr(eq + 1);
    if (!seen.insert(std::string(key)).second) bad(key, "given twice");
    if (value.empty()) bad(key, "empty value (use * for any)");
    const bool any = value == "*";
    if (key == "lv_rope") {
      if (any) continue;
      for (std::string_view pair : split(value, ',')) {
        const auto parts = split(pair, '/');
        if (parts.size() != 2) bad(key, "'" + std::string(pair) + "' is not Lv/rope");
        s.lv_rope.emplace_back(parse_small(key, parts[0]), parse_small(key, parts[1]));
      }
    } else if (key == "dtypes") {
      if (any) continue;
      for (std::string_view combo : split(value, ',')) {
        const auto parts = split(combo, '/');
        if (parts.size() != 3) bad(key, "'" + std::string(combo) + "' is not q/cache/O");
        s.dtypes.push_back({parse_dtype_in(key, parts[0]), parse_dtype_in(key, parts[1]), parse_dtype_in(key, parts[2])});
      }
    } else if (key == "heads") {
      if (any) continue;
      if (const std::size_t dots = value.find(".."); dots != std::string_view::npos) {
        s.heads_min = parse_small(key, value.substr(0, dots));
        s.heads_max = parse_small(key, value.substr(dots + 2));
      } else {
        s.head_list = parse_int_list(key, value);
      }
    } else if (key == "bs") {
      if (!any) s.block_sizes = parse_int_list(key, value);
    } else if (key == "max_q") {
      s.max_q_len = any ? 0 : parse_small(key, value);
    } else if (key == "q_over_kv") {
      s.q_over_kv = parse_flag(key, value);
    } else if (key == "max_pool") {
      s.max_pool_bytes = any ? 0 : parse_int(key, value);
    } else if (key == "sequences") {
      s.sequences = parse_flag(key, value);
    } else if (key == "graph") {
      s.graph = parse_flag(key, value);
    } else {
      throw std::invalid_argument("space: unknown key '" + std::string(key) +
                                  "' (lv_rope, dtypes, heads, bs, max_q, q_over_kv, max_pool, sequences, graph)");
    }
  }
  validate(s);
  return s;
}

bool allows_heads(const SupportSpace& s, int rank_heads) {
  if (!s.head_list.empty()) return has(s.head_list, rank_heads);
  return rank_heads >= s.heads_min && rank_heads <= s.heads_max;
}

bool contains(const SupportSpace& s, const MlaDecodeProblem& p, std::string* why) {
  const auto out = [why](const std::string& reason) {
    if (why != nullptr) *why = reason;
    return false;
  };
  if (!s.lv_rope.empty() && !has(s.lv_rope, std::pair{p.kv_lora_rank, p.rope_dim})) {
    return out("lv_rope " + std::to_string(p.kv_lora_rank) + "/" + std::to_string(p.rope_dim));
  }
  if (!s.dtypes.empty() && !has(s.dtypes, DtypeCombo{p.q_dtype, p.kv_dtype, p.o_dtype})) {
    return out("dtypes " + std::string(to_string(p.q_dtype)) + "/" + std::string(to_string(p.kv_dtype)) + "/" +
               std::string(to_string(p.o_dtype)));
  }
  if (!allows_heads(s, heads(p))) return out("heads " + std::to_string(heads(p)));
  if (!s.block_sizes.empty() && !has(s.block_sizes, p.block_size)) return out("bs " + std::to_string(p.block_size));
  if (s.max_q_len > 0 && max_q_len(p) > s.max_q_len) return out("max_q " + std::to_string(max_q_len(p)));
  if (!s.q_over_kv) {
    for (std::size_t r = 0; r < p.q_lens.size(); ++r) {
      if (p.q_lens[r] > p.kv_lens[r]) return out("q_over_kv: request " + std::to_string(r));
    }
  }
  if (s.max_pool_bytes > 0 && cache_pool_bytes(p) > s.max_pool_bytes) {
    return out("max_pool " + std::to_string(cache_pool_bytes(p)));
  }
  if (!s.sequences && p.steps > 1) return out("sequences: " + std::to_string(p.steps) + " steps");
  return true;
}

std::vector<std::string> space_excludes(const SupportSpace& s) {
  std::vector<std::string> out;
  const auto listed = [](const std::string& what, const std::vector<std::string>& values) {
    return what + join(values, [](const std::string& v) { return v; }, ", ");
  };
  if (!s.lv_rope.empty()) {
    std::vector<std::string> lvs;
    std::vector<std::string> ropes;
    for (int lv : kModelLvs) {
      if (std::none_of(s.lv_rope.begin(), s.lv_rope.end(), [lv](const auto& p) { return p.first == lv; })) {
        lvs.push_back(std::to_string(lv));
      }
    }
    for (int rope : kRopes) {
      if (std::none_of(s.lv_rope.begin(), s.lv_rope.end(), [rope](const auto& p) { return p.second == rope; })) {
        ropes.push_back(std::to_string(rope));
      }
    }
    if (!lvs.empty()) out.push_back(listed("Lv ", lvs));
    if (!ropes.empty()) out.push_back(listed("rope ", ropes));
    out.push_back("(Lv, rope) pairs other than " +
                  join(s.lv_rope, [](const auto& p) { return std::to_string(p.first) + "/" + std::to_string(p.second); },
                       ", "));
  }
  if (!s.dtypes.empty()) {
    const auto any_of = [&s](auto pred) { return std::any_of(s.dtypes.begin(), s.dtypes.end(), pred); };
    if (!any_of([](const DtypeCombo& c) { return is_fp8(c.q); })) out.emplace_back("fp8 queries");
    for (DType q : kSixteenBit) {
      if (!any_of([q](const DtypeCombo& c) { return c.q == q; })) out.push_back("q " + std::string(to_string(q)));
    }
    for (DType kv : kCacheDtypes) {
      if (!any_of([kv](const DtypeCombo& c) { return c.kv == kv; })) {
        out.push_back((is_fp8(kv) ? "" : "cache ") + std::string(to_string(kv)));
      }
    }
    for (DType o : kSixteenBit) {
      if (!any_of([o](const DtypeCombo& c) { return c.o == o; })) out.push_back("O " + std::string(to_string(o)));
    }
    // The sweep's combinations: 16-bit q with any cache, fp8 q with its own cache; O 16-bit.
    int sweep_combos = 0;
    int allowed = 0;
    for (DType q : {DType::bf16, DType::f16, DType::fp8_e4m3fn, DType::fp8_e4m3fnuz}) {
      for (DType kv : kCacheDtypes) {
        if (is_fp8(q) && kv != q) continue;
        for (DType o : kSixteenBit) {
          ++sweep_combos;
          allowed += has(s.dtypes, DtypeCombo{q, kv, o}) ? 1 : 0;
        }
      }
    }
    out.push_back(std::to_string(sweep_combos - allowed) + " of the sweep's " + std::to_string(sweep_combos) +
                  " (q, cache, O) dtype combinations");
  }
  if (!s.head_list.empty()) {
    out.push_back("heads other than " + join(s.head_list, int_text, ", "));
  } else {
    if (s.heads_min > 1) out.push_back("heads < " + std::to_string(s.heads_min));
    if (s.heads_max < kSweepMaxRankHeads) out.push_back("heads > " + std::to_string(s.heads_max));
  }
  if (!s.block_sizes.empty()) out.push_back("block sizes other than " + join(s.block_sizes, int_text, ", "));
  if (s.max_q_len > 0 && s.max_q_len < kSweepMaxQLen) out.push_back("q_len > " + std::to_string(s.max_q_len));
  if (!s.q_over_kv) out.emplace_back("requests with q_len > kv_len (padded requests)");
  if (s.max_pool_bytes > 0) out.push_back("cache pools over " + std::to_string(s.max_pool_bytes) + " bytes");
  if (!s.sequences) out.emplace_back("decode sequences");
  if (!s.graph) out.emplace_back("graph replay");
  return out;
}

std::string space_excludes_text(const SupportSpace& s) {
  return join(space_excludes(s), [](const std::string& v) { return v; }, "; ");
}

}  // namespace mlacheck
