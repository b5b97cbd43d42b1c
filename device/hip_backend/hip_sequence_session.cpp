#include "device/hip_backend/hip_sequence_session.hpp"

#include <stdexcept>
#include <string>

#include "core/mla_sequence.hpp"
#include "device/hip_backend/decode_path.hpp"
#include "device/hip_backend/mla_decode_pipeline.hpp"
#include "device/hip_backend/sequence_plans.hpp"
#include "device/hip_backend/staged_mla_tensors.hpp"
#include "device/staging/mla_decode_staging.hpp"

namespace mlacheck {

namespace {

MlaDecodeProblem launched_on(MlaDecodeProblem p, DecodePath path) {
  p.path = path;
  return p;
}

class HipSequenceSession final : public MlaSequenceSession {
 public:
  HipSequenceSession(const MlaDecodeProblem& seq, const DeviceInfo& info, const FaultSet& faults)
      : seq_(with_defaults(seq)), info_(info), faults_(faults), plans_(faults) {
    validate(seq_);
    select_device(info_.index);
    path_ = choose_decode_path(sequence_capacity(seq_), info_.compute_units);
    staging_ = MlaDecodeStaging::for_sequence(seq_, StagingMemory::device);
    // The intermediates join the staging's buffer set: one canary check per step covers them all.
    scratch_ = std::make_unique<RetainedIntermediates>(staging_->buffers());
    scratch_->reserve(sequence_intermediate_sizes(seq_, path_.path, info_, faults_));
  }

  MlaDecodeRun run_step(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                        std::span<const std::int64_t> written_slots) override {
    expect_next_step(seq_, next_, step, "hip");
    const int k = next_++;  // a step that throws still counts: the buffers are no longer step k-1's
    select_device(info_.index);
    staging_->restage(step, in, written_slots);
    scratch_->set_step(k);
    const HipDecodeResult result =
        run_hip_decode_on(launched_on(staging_->problem(), path_.path), staged_tensors(*staging_), *scratch_, info_,
                          nullptr, faults_, DeviceTiming::events, &plans_);
    MlaDecodeRun run = staging_->collect(LseBase::natural);
    run.diag.path = std::string(to_string(result.path.path));
    run.diag.path_reason = path_.reason + " (chosen once for the sequence, at its final lengths)";
    run.diag.num_splits = result.work_count;
    run.diag.device_ms = result.device_ms;
    return run;
  }

 private:
  MlaDecodeProblem seq_;
  DeviceInfo info_;
  FaultSet faults_;
  SequencePlans plans_;
  DecodePathChoice path_;
  std::unique_ptr<MlaDecodeStaging> staging_;
  std::unique_ptr<RetainedIntermediates> scratch_;
  int next_ = 0;
};

}  // namespace

SizingIntermediates sequence_intermediate_sizes(const MlaDecodeProblem& seq, DecodePath path, const DeviceInfo& info,
                                                const FaultSet& faults) {
  // Every step's own preparation, not only the capacity problem's: the persistent partial rows and
  // the split-KV split count are not monotone in the lengths (a plan of shorter requests may split
  // more of them), while the six plan buffers depend on the batch and q_len alone. The capacity
  // problem bounds kv_indices (the sum of the final lengths). With plan-stale-at-replay a later
  // step launches the first step's plan, whose partial rows and kv_indices positions are within
  // what step 0's preparation asked for.
  SizingIntermediates sizes;
  const auto prepare = [&](const MlaDecodeProblem& p) {
    const MlaDecodeSession session(launched_on(p, path), StagedMlaTensors{}, sizes, info, nullptr, faults);
  };
  const MlaDecodeProblem s = with_defaults(seq);
  for (int k = 0; k < s.steps; ++k) prepare(sequence_step(s, k));
  prepare(sequence_capacity(s));
  return sizes;
}

std::unique_ptr<MlaSequenceSession> make_hip_sequence_session(const MlaDecodeProblem& seq, const DeviceInfo& info,
                                                              const FaultSet& faults) {
  return std::make_unique<HipSequenceSession>(seq, info, faults);
}

}  // namespace mlacheck
