#pragma once
// The e4m3fn twin of each curated e4m3fnuz case (issue 34 item 4): fnuz is AMD's fp8 (MI300's
// native e4m3); CUDA kernels and Triton have none, so a kernel without it refused every fnuz case
// of the default plan and had that share of it SKIPPED. Each twin is the same problem with every
// fnuz tensor (cache, and queries of its type) in e4m3fn, under the id `<id>-fn`, right after its
// original, so both formats stay curated and a kernel takes whichever it supports. The default
// sweeps and the clean scenario rows of the run plan (scenario.<id>-fn) have twins; the kill
// matrix's faulted runs, which reproduce upstream's bugs as filed, do not.
#include <optional>
#include <vector>

#include "core/mla_problem.hpp"

namespace mlacheck {

inline constexpr const char* kFp8TwinSuffix = "-fn";

// The twin of an e4m3fnuz case (named `<name>-fn`), or nullopt for a case with no fnuz tensor.
std::optional<MlaDecodeProblem> e4m3fn_twin(const MlaDecodeProblem& p);

// `cases` with the twin of each e4m3fnuz case inserted after it; the others unchanged.
std::vector<MlaDecodeProblem> with_e4m3fn_twins(const std::vector<MlaDecodeProblem>& cases);

}  // namespace mlacheck
