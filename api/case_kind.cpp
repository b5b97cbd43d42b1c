#include "api/case_kind.hpp"

#include "api/api_objects.hpp"
#include "harness/op_registry.hpp"

namespace mlacheck::api {

mlacheck_case_kind case_kind(const RunCase& c) {
  if (c.kind == RunCase::Kind::oracle_self_check) return MLACHECK_CASE_ORACLE_SELF_CHECK;
  if (op_of_repro(c.repro) == KvGatherOp::name) return MLACHECK_CASE_KV_GATHER;
  return MLACHECK_CASE_MLA_DECODE;
}

bool ensure_oracle(mlacheck_case* c, int oracle_threads) {
  PreparedMlaCase& prepared = c->prepared;
  if (!prepared.ready_for_device && prepared.row.state != ResultState::errored) {
    prepare_mla_oracle(prepared, {}, oracle_threads);
  }
  return prepared.ready_for_device;
}

}  // namespace mlacheck::api
