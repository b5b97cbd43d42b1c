#include "scenarios/repro_pattern.hpp"

#include <map>
#include <stdexcept>

#include "core/error.hpp"
#include "core/repro_format.hpp"
#include "scenarios/case_repro.hpp"

namespace mlacheck::scenarios {

namespace {

using Fields = std::map<std::string, std::string, std::less<>>;

// The repro string's fields with the pattern's set on them, as one repro string again.
std::string with_fields(std::string_view op, Fields fields, const ReproPattern& pattern) {
  for (const auto& [key, value] : pattern.fields) fields[key] = value;
  std::string out = std::string(op) + ":";
  for (const auto& [key, value] : fields) out += key + "=" + value + ";";
  return out;
}

// A valid case of the operation, to try a pattern's keys and values on: one request of one cached
// token (`kv` is every op's request lengths), every other field the descriptor's default.
std::string some_case(std::string_view op) { return to_repro(parse_case(std::string(op) + ":name=pattern;kv=1")); }

}  // namespace

ReproPattern parse_repro_pattern(std::string_view text) {
  ReproPattern pattern;
  pattern.op = std::string(repro_op(text));
  if (!is_case_op(pattern.op)) {
    throw ReproParseError("'" + pattern.op + "' is not one of " + op_names() + " (a pattern starts with op:)");
  }
  const repro::Reader reader(text, pattern.op);
  for (const auto& field : reader.remaining()) pattern.fields.emplace_back(field);
  // Every key known to the operation and every value one its key can hold: the parser says, on a
  // case the pattern's fields are set on. A case they make invalid (q_scale without fp8 queries) is
  // no error: the pattern fixes fields, other cases than this one have them.
  const std::string probe = some_case(pattern.op);
  try {
    parse_case(with_fields(pattern.op, repro::Reader(probe, pattern.op).remaining(), pattern));
  } catch (const InvalidProblem&) {
  }
  return pattern;
}

bool matches(const ReproPattern& pattern, std::string_view repro) {
  if (repro_op(repro) != pattern.op) return false;
  try {
    const std::string canonical = to_repro(parse_case(repro));
    const Fields fields = repro::Reader(canonical, pattern.op).remaining();
    return to_repro(parse_case(with_fields(pattern.op, fields, pattern))) == canonical;
  } catch (const std::invalid_argument&) {
    // A repro string that does not parse, or whose case the pattern's fields make invalid: a case
    // with those fields would be valid and unchanged by them, so this one has other values.
    return false;
  }
}

}  // namespace mlacheck::scenarios
