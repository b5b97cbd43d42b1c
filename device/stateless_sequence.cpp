// Backend::begin_sequence's default: a session that keeps nothing across steps. Each step is a
// one-step problem staged afresh by run(), so a backend without its own notion of sequences (a
// plugin: the C ABI has none) is still judged step by step. The steps' order is checked here, as
// in the stateful sessions, so a harness that skips or repeats a step is told so by every backend.
#include <stdexcept>
#include <string>

#include "core/mla_sequence.hpp"
#include "device/backend.hpp"

namespace mlacheck {

namespace {

class StatelessSequenceSession final : public MlaSequenceSession {
 public:
  StatelessSequenceSession(Backend& backend, const MlaDecodeProblem& seq, const FaultSet& faults)
      : backend_(backend), seq_(with_defaults(seq)), faults_(faults) {}

  MlaDecodeRun run_step(const MlaDecodeProblem& step, const MlaDecodeInputs& in,
                        std::span<const std::int64_t>) override {
    expect_next_step(seq_, next_, step, backend_.name());
    ++next_;
    // The written slots are of no use here: run() uploads the whole host pool.
    return backend_.run(step, in, faults_);
  }

 private:
  Backend& backend_;
  MlaDecodeProblem seq_;
  FaultSet faults_;
  int next_ = 0;
};

}  // namespace

void expect_next_step(const MlaDecodeProblem& seq, int next, const MlaDecodeProblem& step, std::string_view backend) {
  const std::string who = std::string(backend) + " backend: ";
  if (next >= seq.steps) {
    throw std::invalid_argument(who + seq.name + " has no step after step " + std::to_string(next - 1) + " of " +
                                std::to_string(seq.steps));
  }
  if (with_defaults(step) != with_defaults(sequence_step(seq, next))) {
    throw std::invalid_argument(who + "the problem given as step " + std::to_string(next) + " of " + seq.name +
                                " is not that step (sequence_step)");
  }
}

std::unique_ptr<MlaSequenceSession> Backend::begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults) {
  return std::make_unique<StatelessSequenceSession>(*this, seq, faults);
}

void refuse_sequence_run(const MlaDecodeProblem& p, std::string_view backend) {
  if (!is_sequence(p)) return;
  throw std::invalid_argument(std::string(backend) + " backend cannot run " + p.name + ": it is a decode sequence of " +
                              std::to_string(p.steps) + " steps: run it through begin_sequence");
}

}  // namespace mlacheck
