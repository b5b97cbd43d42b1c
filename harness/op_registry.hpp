#pragma once
// The operations mlacheck checks, registered once. Each op is a struct of hooks in its own files
// (MlaDecodeOp in harness/mla_case.hpp, KvGatherOp in harness/gather_case.hpp):
//   name      the repro string's prefix and the row's op ("mla_decode");
//   parse     a repro string to the op's descriptor, validated (throws std::invalid_argument);
//   prepare   admission, inputs and the reference: the host half, thread-safe;
//   finish    the backend run and the comparison: the device half, from a prepared case that
//             stays unchanged (the sensitivity matrix finishes one prepared case several times);
//   work      the reference's and kernels' work in scalar steps, for the watchdog's limit;
//   facets    what reports group cases by and known bugs match by (harness/case_facets.hpp),
//             with the op's coverage_buckets and has_queries (whether it has query heads and rows);
//   report_groups  report.csv's column groups, one per tensor the op compares ("O", "LSE");
//   abi_case_kind  its mlacheck_case_kind in the harness C API.
// The generic driver below runs any registered op; it is `OpRegistry<Ops>`
// (harness/op_registry_driver.hpp), a template a test instantiates with an op list of its own.
// Adding an op: its files, its struct of hooks, and one entry in `Ops` below.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>
#include <variant>

#include "device/backend.hpp"
#include "harness/case_result.hpp"
#include "harness/gather_case.hpp"
#include "harness/mla_case.hpp"
#include "harness/op_registry_driver.hpp"

namespace mlacheck {

// The registry: every op, in the order their descriptors appear in CaseProblem.
using Ops = std::tuple<MlaDecodeOp, KvGatherOp>;

using ShippedOps = OpRegistry<Ops>;

// One case of any op: its descriptor (a scenario's, a plan's, a generator's draw).
using CaseProblem = ShippedOps::Problem;
// One case of any op with its host half done.
using PreparedCase = ShippedOps::Prepared;

// The op's name ("mla_decode", "kv_gather").
std::string_view op_name(const CaseProblem& c);
// Every registered op's name, comma-separated, for messages that list what a repro may start with.
std::string op_names();
// The registered op a repro string names by its prefix; "" when none does.
std::string_view op_of_repro(std::string_view repro);
// The case of a repro string, through its op's parse hook. Throws std::invalid_argument naming the
// registered ops when the prefix is none of them, or what the op's parse throws.
CaseProblem parse_case(std::string_view repro);

std::string to_repro(const CaseProblem& c);
const std::string& case_name(const CaseProblem& c);
void rename_case(CaseProblem& c, std::string name);
// The op's work estimate (scalar steps of its reference and kernels), for watchdog limits.
double case_work(const CaseProblem& c);
// The case's facets (parsed stays false: the caller that read a repro sets it).
CaseFacets case_facets(const CaseProblem& c);
// Every op's coverage buckets, in registry order, each name once.
std::vector<std::string> op_coverage_buckets();
// Whether the named op has query heads and rows; throws std::invalid_argument for no registered op.
bool op_has_queries(std::string_view op);
// The named op's case kind in the harness C API (its `abi_case_kind`); throws
// std::invalid_argument for no registered op.
int op_abi_case_kind(std::string_view op);

// The generic driver. `backend` may be null: the case is then SKIPPED with `unavailable_reason`.
// Never throws for a device-side failure (an ERRORED row names it). oracle_threads: the threads
// the case's reference may use (harness/oracle_share.hpp).
PreparedCase prepare_case(const CaseProblem& c, const Backend* backend, std::string_view unavailable_reason,
                          const FaultSet& faults = {}, int oracle_threads = 1);
CaseResult finish_case(const PreparedCase& prepared, Backend* backend, const FaultSet& faults = {});
CaseResult run_case(const CaseProblem& c, Backend* backend, std::string_view unavailable_reason,
                    const FaultSet& faults = {});

}  // namespace mlacheck
