// Games of tree search priced on a slice, and a run whose blocks are
// generations of them (MiniGo): the part of the shared composition
// (projected_run.h) for a loop that plays games as well as trains.
//
// One set of games (GameWork), as MiniGo's self-play plays them
// (../shared/reference/minigo-v0.6-loop.md §2):
//   cores       the games are spread evenly over `cores` cores, each core
//               playing up to parallel_games_per_core of its games at once
//               (a wave), so a core plays ceil(games_per_core /
//               parallel games) waves one after another;
//   rounds      every move takes readouts_per_move / virtual_losses rounds;
//               in a round each game of the wave adds virtual_losses leaves,
//               so a core evaluates parallel games x virtual losses board
//               positions in one batched inference (the graph's eval list at
//               that batch, priced by ProjectEvalStep, i.e. by the shared op
//               pricing);
//   host        the tree search (selection, the leaf's board and features,
//               backup) runs on the core's host, host_ops_per_readout scalar
//               operations per leaf at the system file's documented host
//               rate (host.scoring_ops_per_s, one host process's scalar
//               operations per second), on search_threads_per_core threads
//               per core, each searching its share of the wave's games;
//   overlap     each core's games are searched in two halves that take turns
//               (NVIDIA ran two self-play processes per GPU, §2): while the
//               device evaluates one half's leaves the host searches the
//               other's, so a round takes the longer of the device's and the
//               host's part, and which is longer bounds the games.
// A generation (GenerationPlan): the training steps and then gating on the
// training cores (a sub-slice, StepSpec::slice), self-play by the current
// best model beside them on every other core of the slice, and the target
// evaluation beside training on cores of its own. A generation takes the
// longer of the training path (steps + gating) and self-play; when no core
// is left for self-play (the training slice is the whole slice), the cores
// take turns and the generation is their sum.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "topology/slice.h"
#include "workloads/projection/graph.h"
#include "workloads/projection/layout.h"
#include "workloads/projection/projection.h"

namespace podbench::projection {

struct GameWork {
  std::string what;                  // e.g. "self-play", "gating", "target evaluation"
  int64_t games = 0;
  double moves_per_game = 0;         // mean moves (positions) a game plays
  int64_t readouts_per_move = 1;
  int64_t virtual_losses = 1;        // leaves one game adds to a batch per round
  int64_t parallel_games_per_core = 1;
  int64_t cores = 0;                 // cores that play the games
  double host_ops_per_readout = 0;   // scalar host operations of the search per leaf
  int64_t search_threads_per_core = 1;
};

struct GamesPricing {
  GameWork work;
  int64_t games_per_core = 0;    // ceil(games / cores)
  int64_t parallel_games = 0;    // min(parallel_games_per_core, games_per_core)
  int64_t batch_per_core = 0;    // parallel_games x virtual_losses
  int64_t waves = 0;             // ceil(games_per_core / parallel_games)
  int64_t rounds = 0;            // waves x ceil(moves x readouts / virtual_losses)
  StepProjection inference;      // one batched inference on a core
  double device_round_s = 0;     // inference.step_s()
  double host_round_s = 0;       // the busiest thread's search of a round
  double round_s = 0;            // max of the two
  double device_s = 0, host_s = 0, total_s = 0;  // rounds x each
  bool host_bound() const { return host_round_s > device_round_s; }
};

// Prices `work` with the graph's eval list on `slice` (one replica per core,
// the inference at batch_per_core; `options` as the run's). InvalidArgument
// naming work.what and the field unless games, moves, readouts, virtual
// losses, parallel games, cores and threads are >= 1, cores is at most the
// slice's, readouts >= virtual_losses and the threads of a host's cores fit
// its vcpus; the layer's errors.
Result<GamesPricing> PriceGames(const ModelGraph& graph, const GameWork& work, const topology::Slice& slice,
                                const ProjectionOptions& options = {});

// What a generation plays besides its training steps. The cores fields of
// self_play are filled by PriceGeneration: the slice's cores not in the
// training sub-slice (or all of them when none are left); gating plays on
// the training cores; evaluation on `evaluation.cores` cores of its own.
struct GenerationPlan {
  GameWork self_play;
  GameWork gating;
  GameWork evaluation;
};

struct GenerationPricing {
  int64_t train_cores = 0;  // the training sub-slice's
  int64_t play_cores = 0;   // self-play's
  bool shared = false;      // self-play takes turns with training on the same cores
  GamesPricing self_play, gating, evaluation;
  // A generation of `train_steps_s` seconds of training steps: the training
  // path (steps, then gating) against self-play.
  double TrainPathS(double train_steps_s) const { return train_steps_s + gating.total_s; }
  double PeriodS(double train_steps_s) const;
  // "training + gating" or "self-play": what sets the period.
  std::string PeriodSetBy(double train_steps_s) const;
};

// Prices `plan` on `slice` whose training runs on `train_cores` of its
// cores. Errors: PriceGames', naming the games.
Result<GenerationPricing> PriceGeneration(const ModelGraph& graph, GenerationPlan plan, int64_t train_cores,
                                          const topology::Slice& slice, const ProjectionOptions& options = {});

}  // namespace podbench::projection
