// MiniGo's `default` preset and the v0.6 reference's training and self-play
// flags a projected MiniGo reads.
//
// Google submitted no MiniGo to v0.6, so there is no `google-v0.6` preset.
// `default` is plain data parallelism over every core of the slice, each
// core one replica, at the reference's training batch of 8192 positions
// (ml_perf/flags/9/train.flags); it is podbench's choice, not a published
// configuration. Source of the flags: NVIDIA's v0.6 MiniGo
// (mlcommons/training_results_v0.6, NVIDIA/benchmarks/minigo/implementations/
// tensorflow/minigo/ml_perf/flags/9/*.flags); ../shared/reference/minigo-v0.6.md.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/status.h"
#include "workloads/minigo/go/mcts.h"
#include "workloads/projection/layout.h"

namespace podbench::minigo {

inline constexpr int64_t kMiniGoTrainBatch = 8192;  // train_batch_size
inline constexpr double kMiniGoLearningRates[3] = {0.32, 0.032, 0.0032};
inline constexpr int64_t kMiniGoLrBoundaries[2] = {12500, 18750};  // steps
inline constexpr double kMiniGoMomentum = 0.9;
inline constexpr double kMiniGoL2 = 1e-4;            // l2_strength
inline constexpr double kMiniGoValueCostWeight = 0.25;
// Self-play: MCTS readouts per move, and the positions one inference call
// evaluates (parallel_games x virtual_losses, selfplay.flags). Readouts and
// virtual losses are the tree search's own defaults (go/mcts.h).
inline constexpr int64_t kMiniGoReadoutsPerMove = MctsOptions{}.num_readouts;
inline constexpr int64_t kMiniGoParallelGames = 128;
inline constexpr int64_t kMiniGoVirtualLosses = MctsOptions{}.virtual_losses;
inline constexpr int64_t kMiniGoInferenceBatch = kMiniGoParallelGames * kMiniGoVirtualLosses;

// The "minigo" zoo entry's preset function: `default` only, on any slice
// whose core count divides 8192. Replicas = cores, 1 core each, batch 8192 /
// cores per replica, local batch norm, fp32 gradients, momentum SGD; the
// evaluation step is one self-play inference batch of 1024 positions per core.
Result<projection::StepConfig> DefaultPreset(std::string_view preset, std::string_view slice, int64_t slice_cores);

}  // namespace podbench::minigo
