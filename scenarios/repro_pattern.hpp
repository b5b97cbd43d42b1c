#pragma once
// A partial repro string that a known bug matches cases with: the operation and only the fields
// the bug needs ("mla_decode:q=6*3;kv_dtype=fp8_e4m3fn"). A case matches when setting the
// pattern's fields on the case leaves it the same case, so values compare as the descriptor reads
// them ("4096*2" is "4096,4096", "0.50" is "0.5") and a field the canonical string leaves out
// matches its default ("first_block=0", "steps=1").
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mlacheck::scenarios {

struct ReproPattern {
  std::string op;                                           // "mla_decode" or "kv_gather"
  std::vector<std::pair<std::string, std::string>> fields;  // key, value as written
};

// "op:" then key=value fields separated by ';' (none: every case of the op). Throws ReproParseError
// for an unknown operation, a malformed, repeated or unknown key, or a value its key cannot hold.
ReproPattern parse_repro_pattern(std::string_view text);

// Whether the case of this repro string (any form the descriptor parses) has every field of the
// pattern; false for a repro string of another operation or one that does not parse.
bool matches(const ReproPattern& pattern, std::string_view repro);

}  // namespace mlacheck::scenarios
