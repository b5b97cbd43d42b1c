#pragma once
// A plan's fingerprint: what `mlacheck run --resume` compares before it keeps a report's rows, so
// that a report of another plan (another --seed, scenario table, --case or --property-cases) is
// refused rather than mixed in. Each case's id, kind and repro string enter it, in plan order;
// the watchdog limits do not (a longer --timeout runs the same cases). The whole plan is hashed,
// not one shard of it, so every shard of a run carries the same fingerprint.
#include <string>
#include <vector>

#include "plan/run_plan.hpp"

namespace mlacheck {

// 16 lower-case hex digits (64-bit FNV-1a over the cases' id, kind and repro).
std::string plan_fingerprint(const std::vector<RunCase>& plan);

}  // namespace mlacheck
