#include "harness/sequence_row.hpp"

#include <stdexcept>

namespace mlacheck {

std::string step_label(int step, int steps) { return "step " + std::to_string(step) + " of " + std::to_string(steps); }

SequenceRow::SequenceRow(const CaseResult& before, int steps) : before_(before), steps_(steps) {}

bool SequenceRow::add(int step, const CaseResult& step_row) {
  if (stopped_ || step != added_ || step >= steps_) {
    throw std::logic_error("sequence row of " + before_.id + ": step " + std::to_string(step) + " added after " +
                           std::to_string(added_) + " of " + std::to_string(steps_) + " steps" +
                           (stopped_ ? " and a step that stopped the sequence" : ""));
  }
  ++added_;
  device_ms_ += step_row.device_ms;
  if (!step_row.path.empty()) paths_.insert(step_row.path);
  if (step_row.state == ResultState::passed) {
    if (const double used = bound_used(step_row); used > worst_used_) {
      worst_used_ = used;
      worst_passed_ = step_row;
    }
    return true;
  }
  ++failed_;
  if (!first_bad_) {
    first_bad_ = step_row;
    first_bad_->reason = step_label(step, steps_) + ": " + step_row.reason;
  }
  if (step_row.state == ResultState::errored || step_row.state == ResultState::skipped) {
    stopped_ = true;
    if (step + 1 < steps_) {
      first_bad_->reason += " (steps " + std::to_string(step + 1) + ".." + std::to_string(steps_ - 1) + " not run)";
    }
    // What finished before the sequence stopped stays in the row.
    if (step > 0 && failed_ == 1) first_bad_->reason += ", steps 0.." + std::to_string(step - 1) + " passed";
  }
  return !stopped_;
}

CaseResult SequenceRow::finish() const {
  if (added_ == 0) throw std::logic_error("sequence row of " + before_.id + ": no step was added");
  if (added_ < steps_ && !stopped_) {
    throw std::logic_error("sequence row of " + before_.id + ": " + std::to_string(added_) + " of " +
                           std::to_string(steps_) + " steps were added and none stopped the sequence");
  }
  CaseResult row = first_bad_ ? *first_bad_ : worst_passed_;
  if (first_bad_ && failed_ > 1)
    row.reason += " [" + std::to_string(failed_) + " of " + std::to_string(steps_) + " steps failed]";
  row.wall_ms = before_.wall_ms;
  row.reference_ms = before_.reference_ms;
  row.device_ms = device_ms_;
  std::string path;
  for (const std::string& p : paths_) path += (path.empty() ? "" : "+") + p;
  row.path = path;
  return row;
}

}  // namespace mlacheck
