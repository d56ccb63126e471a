// Run sets: how `podbench compare BASE CAND` (and `runs`) name groups of runs.
//
//   12            one run id
//   3,4,5         a list of ids
//   3-7           an inclusive id range (may be mixed with ids: 1,3-5,9)
//   label:NAME    every run recorded with `podbench run --label NAME`
//   git:PREFIX    every run whose build's git hash starts with PREFIX
//   NAME          shorthand for label:NAME (when it is not made of digits)
#pragma once

#include <string_view>

#include "base/status.h"
#include "results/store.h"

namespace podbench::results {

// InvalidArgument, quoting the spec, for an empty or malformed one.
Result<RunFilter> ParseRunSet(std::string_view spec);

}  // namespace podbench::results
