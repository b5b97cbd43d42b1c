#pragma once
// Errors for bad input. Each names what was wrong and where, so a user can fix a repro string,
// a CSV row or a command line without reading code.
#include <stdexcept>
#include <string>

namespace mlacheck {

// A descriptor field holds a value that no valid problem has.
class InvalidProblem : public std::invalid_argument {
 public:
  InvalidProblem(std::string op, std::string field, std::string value, std::string reason)
      : std::invalid_argument("invalid " + op + " problem: " + field + "=" + value + ": " + reason),
        op_(std::move(op)), field_(std::move(field)), value_(std::move(value)), reason_(std::move(reason)) {}
  const std::string& op() const { return op_; }
  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string op_, field_, value_, reason_;
};

// A repro string that does not parse; the message quotes the offending key or token.
class ReproParseError : public std::invalid_argument {
 public:
  explicit ReproParseError(const std::string& what) : std::invalid_argument("malformed repro string: " + what) {}
};

}  // namespace mlacheck
