#pragma once
// Device timing for `mlacheck bench`: the decode step of a path alone, and the device's copy
// bandwidth, both with device events after warm-up. Before each timed decode the L2 cache is
// flushed (a buffer twice its size is overwritten), so every run reads the KV cache from memory.
#include <cstddef>
#include <string>
#include <vector>

#include "core/mla_inputs.hpp"
#include "core/mla_problem.hpp"

namespace mlacheck {

struct DecodeTiming {
  std::string path;         // the path that ran (the problem's, or auto's choice)
  int work_count = 0;       // splits per request, or persistent work items
  std::vector<double> us;   // every timed run, microseconds
  double median_us = 0.0;
};

// The median of timed runs (0 for none): what bench reports for the built-in paths and plugins.
double median_of(std::vector<double> runs);

// Throws GpuError on a runtime failure, std::invalid_argument for an unsupported problem.
DecodeTiming time_mla_decode(const MlaDecodeProblem& p, const MlaDecodeInputs& in, int device_index, int warmup,
                             int runs);

// Median device-to-device copy rate in GB/s, counting bytes read plus bytes written.
double copy_bandwidth_gbps(int device_index, std::size_t bytes, int runs);

}  // namespace mlacheck
