#include "harness/op_registry.hpp"

#include <algorithm>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace mlacheck {

namespace {

// Calls f(Op{}) for each op of the registry in order until one returns true; returns whether one did.
template <class F, std::size_t... I>
bool for_first_op(F&& f, std::index_sequence<I...>) {
  return (f(std::tuple_element_t<I, Ops>{}) || ...);
}

template <class F>
bool for_first_op(F&& f) {
  return for_first_op(std::forward<F>(f), std::make_index_sequence<std::tuple_size_v<Ops>>{});
}

// The registered op whose descriptor or prepared case is T.
template <class T, class Tuple>
struct FindOp;
template <class T>
struct FindOp<T, std::tuple<>> {
  using type = void;
};
template <class T, class Op, class... Rest>
struct FindOp<T, std::tuple<Op, Rest...>> {
  using type = std::conditional_t<std::is_same_v<T, typename Op::Problem> || std::is_same_v<T, typename Op::Prepared>,
                                  Op, typename FindOp<T, std::tuple<Rest...>>::type>;
};
template <class T>
using OpOf = typename FindOp<std::decay_t<T>, Ops>::type;

bool has_prefix(std::string_view repro, std::string_view name) {
  return repro.size() > name.size() && repro.substr(0, name.size()) == name && repro[name.size()] == ':';
}

}  // namespace

std::string op_names() {
  std::string names;
  for_first_op([&](auto op) {
    names += (names.empty() ? "" : ", ") + std::string(decltype(op)::name);
    return false;
  });
  return names;
}

std::string_view op_name(const CaseProblem& c) {
  return std::visit([](const auto& p) { return OpOf<decltype(p)>::name; }, c);
}

std::string_view op_of_repro(std::string_view repro) {
  std::string_view found;
  for_first_op([&](auto op) {
    if (!has_prefix(repro, decltype(op)::name)) return false;
    found = decltype(op)::name;
    return true;
  });
  return found;
}

CaseProblem parse_case(std::string_view repro) {
  CaseProblem out;
  const bool parsed = for_first_op([&](auto op) {
    if (!has_prefix(repro, decltype(op)::name)) return false;
    out = decltype(op)::parse(repro);
    return true;
  });
  if (!parsed) {
    const std::string head(repro.substr(0, std::min<std::size_t>(repro.size(), 40)));
    throw std::invalid_argument("repro string '" + head + "' names no operation: it starts with none of " +
                                op_names() + " followed by ':'");
  }
  return out;
}

std::string to_repro(const CaseProblem& c) {
  return std::visit([](const auto& p) { return to_repro(p); }, c);
}

const std::string& case_name(const CaseProblem& c) {
  return std::visit([](const auto& p) -> const std::string& { return p.name; }, c);
}

void rename_case(CaseProblem& c, std::string name) {
  std::visit([&](auto& p) { p.name = std::move(name); }, c);
}

double case_work(const CaseProblem& c) {
  return std::visit([](const auto& p) { return OpOf<decltype(p)>::work(p); }, c);
}

CaseFacets case_facets(const CaseProblem& c) {
  return std::visit([](const auto& p) { return OpOf<decltype(p)>::facets(p); }, c);
}

std::vector<std::string> op_coverage_buckets() {
  std::vector<std::string> out;
  for_first_op([&](auto op) {
    for (const std::string& b : decltype(op)::coverage_buckets()) {
      if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
    }
    return false;
  });
  return out;
}

bool op_has_queries(std::string_view op) {
  bool has = false;
  const bool known = for_first_op([&](auto o) {
    if (decltype(o)::name != op) return false;
    has = decltype(o)::has_queries;
    return true;
  });
  if (!known) throw std::invalid_argument("'" + std::string(op) + "' is no operation; the operations are " + op_names());
  return has;
}

PreparedCase prepare_case(const CaseProblem& c, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int oracle_threads) {
  return std::visit(
      [&](const auto& p) -> PreparedCase {
        return OpOf<decltype(p)>::prepare(p, backend, unavailable_reason, faults, oracle_threads);
      },
      c);
}

CaseResult finish_case(const PreparedCase& prepared, Backend* backend, const FaultSet& faults) {
  return std::visit(
      [&](const auto& p) { return OpOf<decltype(p)>::finish(p, backend, faults); }, prepared);
}

CaseResult run_case(const CaseProblem& c, Backend* backend, std::string_view unavailable_reason,
                    const FaultSet& faults) {
  return finish_case(prepare_case(c, backend, unavailable_reason, faults), backend, faults);
}

}  // namespace mlacheck
