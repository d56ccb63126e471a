// The `functional` preset of MiniGo: the v0.6 loop scaled so that a run
// finishes on 2 host cores. Every number stands beside its v0.6 value
// (FunctionalPresetTable), which is what docs/models/minigo.md prints.
#pragma once

#include <string>
#include <vector>

#include "workloads/minigo/minigo_loop.h"

namespace podbench::minigo {

// The functional loop for `seed`.
LoopConfig FunctionalPreset(uint64_t seed);

struct PresetRow {
  std::string name;        // the LoopConfig field
  std::string v06;         // the v0.6 value and its source
  std::string functional;  // this preset's value
};
// One row per number that differs from v0.6 or is kept on purpose.
std::vector<PresetRow> FunctionalPresetTable();

}  // namespace podbench::minigo
