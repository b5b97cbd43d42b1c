#pragma once
// The generic driver over any list of ops: `OpRegistry<std::tuple<Op...>>`. The shipped registry
// (harness/op_registry.hpp) is `OpRegistry<Ops>` behind plain functions; a test instantiates it
// with an op list of its own (tests/test_op/: the real ops plus a test op) and drives that op
// through the same code the shipped ops run through. Each Op is a struct of hooks as described in
// harness/op_registry.hpp, and its descriptor has `name` and an ADL-visible `to_repro`.
#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "device/backend.hpp"
#include "harness/case_facets.hpp"
#include "harness/case_result.hpp"

namespace mlacheck {

template <class OpList>
struct OpRegistry;

template <class... Op>
struct OpRegistry<std::tuple<Op...>> {
  using Problem = std::variant<typename Op::Problem...>;
  using Prepared = std::variant<typename Op::Prepared...>;

  // Every op's report column groups (its `report_groups`: one per tensor it compares), in op
  // order: report.csv's tensor columns (reports/report_columns.hpp).
  static constexpr auto report_groups = [] {
    std::array<std::string_view, (Op::report_groups.size() + ...)> out{};
    std::size_t i = 0;
    ((std::copy(Op::report_groups.begin(), Op::report_groups.end(), out.begin() + i), i += Op::report_groups.size()),
     ...);
    return out;
  }();

 private:
  // The registered op whose descriptor or prepared case is T.
  template <class T, class... Rest>
  struct Find {
    using type = void;
  };
  template <class T, class First, class... Rest>
  struct Find<T, First, Rest...> {
    using type = std::conditional_t<std::is_same_v<T, typename First::Problem> ||
                                        std::is_same_v<T, typename First::Prepared>,
                                    First, typename Find<T, Rest...>::type>;
  };
  template <class T>
  using OpOf = typename Find<std::decay_t<T>, Op...>::type;

  // Calls f(O{}) for each op in order until one returns true; returns whether one did.
  template <class F>
  static bool for_first_op(F&& f) {
    return (f(Op{}) || ...);
  }

  static bool has_prefix(std::string_view repro, std::string_view name) {
    return repro.size() > name.size() && repro.substr(0, name.size()) == name && repro[name.size()] == ':';
  }

 public:
  static std::string names() {
    std::string out;
    ((out += (out.empty() ? "" : ", ") + std::string(Op::name)), ...);
    return out;
  }

  static std::string_view name(const Problem& c) {
    return std::visit([](const auto& p) { return OpOf<decltype(p)>::name; }, c);
  }

  static std::string_view op_of_repro(std::string_view repro) {
    std::string_view found;
    for_first_op([&](auto op) {
      if (!has_prefix(repro, decltype(op)::name)) return false;
      found = decltype(op)::name;
      return true;
    });
    return found;
  }

  static Problem parse(std::string_view repro) {
    Problem out;
    const bool parsed = for_first_op([&](auto op) {
      if (!has_prefix(repro, decltype(op)::name)) return false;
      out = decltype(op)::parse(repro);
      return true;
    });
    if (!parsed) {
      const std::string head(repro.substr(0, std::min<std::size_t>(repro.size(), 40)));
      throw std::invalid_argument("repro string '" + head + "' names no operation: it starts with none of " +
                                  names() + " followed by ':'");
    }
    return out;
  }

  static std::string repro(const Problem& c) {
    return std::visit([](const auto& p) { return to_repro(p); }, c);
  }

  static const std::string& case_name(const Problem& c) {
    return std::visit([](const auto& p) -> const std::string& { return p.name; }, c);
  }

  static void rename(Problem& c, std::string name) {
    std::visit([&](auto& p) { p.name = std::move(name); }, c);
  }

  static double work(const Problem& c) {
    return std::visit([](const auto& p) { return OpOf<decltype(p)>::work(p); }, c);
  }

  static CaseFacets facets(const Problem& c) {
    return std::visit([](const auto& p) { return OpOf<decltype(p)>::facets(p); }, c);
  }

  static std::vector<std::string> coverage_buckets() {
    std::vector<std::string> out;
    for_first_op([&](auto op) {
      for (const std::string& b : decltype(op)::coverage_buckets()) {
        if (std::find(out.begin(), out.end(), b) == out.end()) out.push_back(b);
      }
      return false;
    });
    return out;
  }

  static bool has_queries(std::string_view op) {
    bool has = false;
    const bool known = for_first_op([&](auto o) {
      if (decltype(o)::name != op) return false;
      has = decltype(o)::has_queries;
      return true;
    });
    if (!known) throw std::invalid_argument("'" + std::string(op) + "' is no operation; the operations are " + names());
    return has;
  }

  // The named op's `abi_case_kind` (its harness C API case kind); throws std::invalid_argument for
  // no op of the list.
  static int abi_case_kind(std::string_view op) {
    int kind = 0;
    const bool known = for_first_op([&](auto o) {
      if (decltype(o)::name != op) return false;
      kind = decltype(o)::abi_case_kind;
      return true;
    });
    if (!known) throw std::invalid_argument("'" + std::string(op) + "' is no operation; the operations are " + names());
    return kind;
  }

  static Prepared prepare(const Problem& c, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults, int oracle_threads) {
    return std::visit(
        [&](const auto& p) -> Prepared {
          return OpOf<decltype(p)>::prepare(p, backend, unavailable_reason, faults, oracle_threads);
        },
        c);
  }

  static CaseResult finish(const Prepared& prepared, Backend* backend, const FaultSet& faults) {
    return std::visit([&](const auto& p) { return OpOf<decltype(p)>::finish(p, backend, faults); }, prepared);
  }

  static CaseResult run(const Problem& c, Backend* backend, std::string_view unavailable_reason,
                        const FaultSet& faults) {
    return finish(prepare(c, backend, unavailable_reason, faults, 1), backend, faults);
  }
};

}  // namespace mlacheck
