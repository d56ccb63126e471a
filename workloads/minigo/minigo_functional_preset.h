// The `functional` preset of MiniGo: the v0.6 loop scaled so that a run
// finishes on 2 host cores. Every number stands beside its v0.6 value in
// FunctionalPreset's comments and in docs/models/minigo.md's table.
#pragma once

#include "workloads/minigo/minigo_loop.h"

namespace podbench::minigo {

// The functional loop for `seed`.
LoopConfig FunctionalPreset(uint64_t seed);

}  // namespace podbench::minigo
