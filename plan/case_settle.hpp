#pragma once
// The settle step: the one function that decides a row's final state on every route (`mlacheck
// run`, `scenarios`, `mutate`, `sensitivity`, `bench`'s oracle check, the harness C API and so
// Python and pytest). The generic driver (harness/op_registry.hpp) and the C API's outcome judge
// hand it a row as the run left it: admitted or SKIPPED by admission (no backend, supports()
// refused, lacks_memory), judged from the numbers, unwritten elements and canaries
// (device_outcome.hpp, mla_judge.hpp), ERRORED by an exception, or lost (harness/lost_case.hpp:
// a crash, a hang, a lost device). settle_case then applies, in order:
//   1. the refusal policy to a row admission left SKIPPED, read from its typed skip reason
//      (core/disposition.hpp; not_enough_memory, a resource and not a refusal, and
//      not_checked_by_policy stay SKIPPED whatever the origin):
//      - no_device (no backend was made): ERRORED backend_not_started where one was expected to
//        start (a GPU the machine has, or a host plugin), else SKIPPED no_device (no GPU at all:
//        the run says nothing was checked on a device);
//      - unsupported by the built-in backend on a curated case: FAILED with fail kind
//        refused_curated (it cannot run what it is meant to; JUnit failure type
//        "refused_curated", distinct from wrong_output);
//      - unsupported by an external backend (a plugin, a Python backend) on a curated case, or by
//        any backend on a generated case: SKIPPED unsupported with the backend's reason, counted
//        as not checked, never a pass;
//   2. the known-bug table (scenarios/known_bugs.hpp) to a FAILED or ERRORED row run without
//      faults: KNOWN_BUG, the data unchanged (a faulted run is about the harness, not the backend).
// Idempotent: settling a settled row changes nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/case_result.hpp"
#include "harness/case_origin.hpp"
#include "scenarios/known_bugs.hpp"

namespace mlacheck {

enum class BackendKind : std::uint8_t {
  built_in,  // mlacheck's own backend ("hip"): it must run every curated case
  external,  // a backend under test: a plugin (backend ABI) or a Python backend (C API)
};

struct SettleContext {
  CaseOrigin origin = CaseOrigin::curated;
  BackendKind backend_kind = BackendKind::built_in;
  // Whether a backend should have started where this row ran: on a machine with a GPU, or for a
  // host plugin. A row without a backend is then ERRORED, else SKIPPED.
  bool backend_expected = false;
  const std::vector<scenarios::KnownBug>* known_bugs = nullptr;  // null: none
};

void settle_case(CaseResult& row, const SettleContext& context);

// The known-bug table a route settles with: the shipped one (plan/data_files.hpp) when `option` is
// unset, none for "", else that file. Throws TableError for a malformed table, std::invalid_argument
// for a missing one.
std::vector<scenarios::KnownBug> load_known_bug_table(const std::optional<std::string>& option);

}  // namespace mlacheck
