#pragma once
// Combines MlaErrorScales measured on disjoint parts of one problem (requests, blocks of rows):
// sums add, maxima take the larger. The oracle merges its parts in a fixed order, so its scales
// do not depend on how many threads measured them.
#include "core/tolerance.hpp"

namespace mlacheck {

void merge_error_scales(MlaErrorScales& total, const MlaErrorScales& part);

}  // namespace mlacheck
