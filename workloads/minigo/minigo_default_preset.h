// The v0.6 reference's training and self-play flags MiniGo's workload reads
// (its `nvidia-v0.6` preset, minigo.cc; Google submitted no MiniGo to v0.6,
// so there is no `google-v0.6` preset). Source of the flags: NVIDIA's v0.6 MiniGo
// (mlcommons/training_results_v0.6, NVIDIA/benchmarks/minigo/implementations/
// tensorflow/minigo/ml_perf/flags/9/*.flags); ../shared/reference/minigo-v0.6.md.
#pragma once

#include <cstdint>

#include "workloads/minigo/go/mcts.h"

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


}  // namespace podbench::minigo
