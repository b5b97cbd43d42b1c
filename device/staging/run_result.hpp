#pragma once
// What a staged run reports: outputs decoded from the backend's storage dtypes with their unwritten
// flags, and the guards it broke. The Backend interface (device/backend.hpp) returns these; the
// staging layer (mla_decode_staging.hpp) fills them for every backend alike.
#include <cstdint>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"

namespace mlacheck {

// A guard region around an allocation that a launch overwrote.
struct BrokenCanary {
  std::string buffer;  // the buffer's name, e.g. "o_padded"
  std::string side;    // "before" or "after"
};

// What a run reports beside its outputs.
struct RunDiagnostics {
  std::string path;         // "split_kv", "persistent" or "gather"
  std::string path_reason;  // why path=auto chose it
  int num_splits = 0;       // split-KV: splits per request; persistent: work items
  double device_ms = 0.0;   // kernel time measured with device events
  std::vector<BrokenCanary> broken_canaries;
  // False when no output had guards to check (a Python backend that returned tensors it
  // allocated itself): the row's canaries then say "n/a", not "ok".
  bool guarded = true;
};

struct MlaDecodeRun {
  MlaDecodeOutputs<float> out;            // decoded from o_dtype; LSE in natural log (fp32)
  std::vector<std::uint8_t> o_unwritten;  // 1 where the poison pattern survived the launch
  std::vector<std::uint8_t> lse_unwritten;
  RunDiagnostics diag;
  // False when the backend declares it writes no LSE (a plugin's writes_lse = 0): the harness then
  // compares O alone and the row's LSE columns stay empty.
  bool lse_written = true;
};

}  // namespace mlacheck
