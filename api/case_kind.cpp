#include "api/case_kind.hpp"

#include "api/api_objects.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck::api {

// The registry's ops state their kinds as plain numbers (harness/ is below the C API); these
// tie the numbers to the published enum.
static_assert(MlaDecodeOp::abi_case_kind == MLACHECK_CASE_MLA_DECODE);
static_assert(KvGatherOp::abi_case_kind == MLACHECK_CASE_KV_GATHER);

mlacheck_case_kind case_kind(const RunCase& c) {
  if (c.kind == RunCase::Kind::oracle_self_check) return MLACHECK_CASE_ORACLE_SELF_CHECK;
  return static_cast<mlacheck_case_kind>(op_abi_case_kind(op_of_repro(c.repro)));
}

bool ensure_oracle(mlacheck_case* c, int oracle_threads) {
  PreparedMlaCase& prepared = c->prepared;
  if (!prepared.ready_for_device && prepared.row.state != ResultState::errored) {
    prepare_mla_oracle(prepared, {}, oracle_threads);
  }
  return prepared.ready_for_device;
}

}  // namespace mlacheck::api
