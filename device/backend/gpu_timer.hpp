#pragma once
// Device-event timing of the work enqueued between start() and stop() on the default stream.
// Plain C++ interface; the events live in gpu_timer.hip.
namespace mlacheck {

class GpuTimer {
 public:
  GpuTimer();
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  void start();
  // Records the stop event, waits for it and returns the milliseconds between the events.
  double stop_ms();

 private:
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

}  // namespace mlacheck
