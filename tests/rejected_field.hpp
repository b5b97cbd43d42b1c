#pragma once
// The field an invalid problem is rejected for (InvalidProblem::field()), or "" when validate()
// accepts it; for every descriptor with a validate() overload.
#include <string>

#include "core/error.hpp"

namespace mlacheck {

template <class Problem>
std::string rejected_field(const Problem& p) {
  try {
    validate(p);
  } catch (const InvalidProblem& e) {
    return e.field();
  }
  return "";
}

}  // namespace mlacheck
