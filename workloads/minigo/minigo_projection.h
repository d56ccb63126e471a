// Projected mode of the "minigo" workload: one v0.6 generation priced on a
// TPU-v3 slice, as what the full-size 9x9 network (minigo_graph.h) gives
// the shared composition (workloads/projection/projected_run.h, games.h).
//
// Facts: ../shared/reference/minigo-v0.6.md ("ref") and minigo-v0.6-loop.md
// ("loop §"). What is MiniGo's own in a run:
//   labels      a label is a generation (loop §2), logged as an epoch from 1;
//   training    one pass over the window of the last 10 generations' games,
//               10 x 363.5 k positions x filter_amount 0.5 / 8192 = 222
//               steps a generation (loop §2, derived), momentum SGD at batch
//               8192, data-parallel on the training sub-slice
//               (projected_train_cores, podbench's choice: a tpu-v3-8);
//   gating      100 games of the new model against the best, after training
//               on the training cores (loop §2: the training path);
//   self-play   4096 games by the best model at 240 readouts and 8 virtual
//               losses, 128 parallel games a core (NVIDIA's 128 a process,
//               loop §2), on every other core of the slice, beside training;
//               its tree search on the hosts (games.h);
//   evaluation  100 games against the target beside training (v0.6 plays
//               them after the loop; its time never counts, loop §3);
//   score       the winning model's save time: the end of its generation
//               (RunEnd::kWinningModel); the winning generation is drawn per
//               run seed from NVIDIA's and Intel's 20 v0.6 runs
//               (MiniGoConvergence). Google ran no MiniGo in v0.6, so there
//               is no published TPU-v3 score to compare with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/projected_runs.h"
#include "workloads/projection/projected_run.h"
#include "workloads/workload.h"

namespace podbench::minigo {

// The v0.6 numbers a projected generation uses besides the flags in
// minigo_default_preset.h.
inline constexpr int64_t kMiniGoGamesPerGeneration = 4096;  // loop §2
inline constexpr int64_t kMiniGoWindowGenerations = 10;     // ref: training window
inline constexpr double kMiniGoFilterAmount = 0.5;          // ref: filter_amount
// Mean positions a generation's game yields: 363.5 k per chunk of 4096 games
// (loop §2, the mean of LN/result_0's 60 chunk sizes), ~88.7 a game.
inline constexpr int64_t kMiniGoPositionsPerChunk = 363500;
inline constexpr double kMiniGoMovesPerGame =
    static_cast<double>(kMiniGoPositionsPerChunk) / static_cast<double>(kMiniGoGamesPerGeneration);
inline constexpr int64_t kMiniGoGatingGames = 100;  // ref: evaluation / gating
inline constexpr double kMiniGoGatingWinRate = 0.49;
inline constexpr int64_t kMiniGoTargetGames = 100;  // loop §3: eval.flags num_games
inline constexpr double kMiniGoTargetWinRate = 0.5;
inline constexpr int64_t kMiniGoIterations = 50;    // loop §3: NVIDIA's rl_loop.flags
// MODELLED, not read from any source: scalar host operations of MiniGo's
// tree search per leaf (readout) on the 9x9 board. Selection down ~5 tree
// levels scoring ~82 children with PUCT (~4 operations each: ~1,640), the
// leaf's board and its 17 x 81 feature planes (~1,500), expanding the
// leaf's 82 priors (~400) and the backup with virtual loss (~60): ~3,600.
inline constexpr double kMiniGoHostOpsPerReadout = 3600;

// The winning generation (1-based) of each published v0.6 run (loop §4).
struct MiniGoRun {
  const char* submitter;
  int run;  // result_<run>.txt
  int64_t generation;
  double score_min;
};
const std::vector<MiniGoRun>& MiniGoPublishedRuns();
// Their convergence table: per generation, how many of the 20 runs won there.
projection::Convergence MiniGoConvergence();

// The projected step: the full-size network on the training sub-slice of
// projected_train_cores cores (StepSpec::slice), momentum SGD at
// global_batch_size split over its cores.
Result<projection::StepSpec> ProjectedStep(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Generations of 222 steps, the generation's games (self-play, gating,
// target evaluation), the convergence of the 20 NVIDIA and Intel runs, the
// modelled win-rate curve and the init line.
Result<projection::RunPlan> ProjectedPlan(const workloads::Hyperparameters& hp, const workloads::SliceInfo& slice);

// Training steps of one generation: one pass over the window,
// ceil(window x positions per chunk x filter_amount / batch).
int64_t StepsPerGeneration(const workloads::Hyperparameters& hp);

// loop §3: save_model {"iteration": g}, at the end of generation g (move it
// with AtEpochOffset where the save's time inside the generation is known).
workloads::WorkloadEvent SaveModelEvent(int64_t g);
// The save_model of each generation of a block and, at the winning
// evaluation, the eval_result whose timestamp the harness fills in (loop §3).
workloads::ProjectedLogLines MiniGoLogLines();

}  // namespace podbench::minigo
