#pragma once
// Device-event timing of the work enqueued between start() and stop() on one stream (the default
// stream unless given). Plain C++ interface; the events live in gpu_timer.hip.
#include "device/platform/stream_handle.hpp"

namespace mlacheck {

class GpuTimer {
 public:
  explicit GpuTimer(StreamHandle stream = nullptr);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  void start();
  // Records the stop event, waits for it and returns the milliseconds between the events.
  double stop_ms();

 private:
  StreamHandle stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
};

}  // namespace mlacheck
