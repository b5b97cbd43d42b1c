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
    if (next_ >= seq_.steps) {
      throw std::invalid_argument(backend_.name() + " backend: " + seq_.name + " has no step after step " +
                                  std::to_string(next_ - 1) + " of " + std::to_string(seq_.steps));
    }
    if (with_defaults(step) != with_defaults(sequence_step(seq_, next_))) {
      throw std::invalid_argument(backend_.name() + " backend: the problem given as step " + std::to_string(next_) +
                                  " of " + seq_.name + " is not that step (sequence_step)");
    }
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

std::unique_ptr<MlaSequenceSession> Backend::begin_sequence(const MlaDecodeProblem& seq, const FaultSet& faults) {
  return std::make_unique<StatelessSequenceSession>(*this, seq, faults);
}

void refuse_sequence_run(const MlaDecodeProblem& p, std::string_view backend) {
  if (!is_sequence(p)) return;
  throw std::invalid_argument(std::string(backend) + " backend cannot run " + p.name + ": it is a decode sequence of " +
                              std::to_string(p.steps) + " steps: run it through begin_sequence");
}

}  // namespace mlacheck
