// MiniGo's v0.6 reinforcement-learning loop, for real, at a size 2 cores
// finish: the functional session the "minigo" plugin runs for
// --mode functional. It decides nothing about logging: it returns the events
// (each generation's save on the emulated clock, each target evaluation, the
// winning model and its save timestamp) and the plugin logs them
// (save_model, eval_start/eval_accuracy/eval_stop, eval_result).
//
// Structure (../shared/reference/minigo-v0.6-loop.md §1-§3):
//   Untimed set-up (§1: v0.6 downloads a checkpoint and a target; podbench
//   makes its own from stated recipes and caches them by recipe and seed):
//     checkpoint = bootstrap self-play by a random model (minigo-v0.6.md
//       §RL loop "Bootstrap"), then training on those games;
//     target = the checkpoint's recipe followed by target_generations more
//       generations of self-play and training (always promoted) - a longer
//       recipe, so the target is what learning reaches, not luck.
//   Timed generations g = 1..generations (§2): in parallel on two threads of
//     the kernels' pool, (a) self-play by the current best model and (b)
//     training the latest model on the window of the last
//     window_generations generations' positions (the checkpoint's games
//     count as generation 0), then save_model(g), then gating against the
//     best (promoted at win rate >= gating_win_rate). Each path is seeded
//     from (seed, g, path) alone, so results do not depend on the threads'
//     timing.
//   Target evaluation (§3): the saved models in training order, target_games
//     games each against the target with alternating colours, stopping at
//     the first with win rate >= target_win_rate.
// The emulated clock: each generation lasts max(self-play, train + gating)
// (§2 "In parallel"), each phase priced by `price` from the positions it
// evaluates and the examples it trains on; save g is stamped at the
// generation's start plus its training time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/minigo/go/mcts.h"
#include "workloads/minigo/minigo_network.h"
#include "workloads/minigo/minigo_training.h"

namespace podbench::minigo {

// Match play: `num_games` games of a against b with the same search options,
// a black in even-numbered games (alternating colours), `parallel_games` at a
// time, each side's leaves of all running games in one call of its
// evaluator. Game g's seeds come from (seed, g). Returns a's wins.
// Gating and target games are v0.6 evaluation games, so a match plays as
// `cc/eval.cc` sets its players (88-95 in both NVIDIA's and Intel's code):
// `options` with no root noise, no soft-pick (the most-visited move from the
// first move on) and random symmetries on, whatever those three fields say;
// readouts, virtual losses, value_init_penalty and resignation (in every
// game) come from `options`.
// Errors: bad counts (InvalidArgument), the evaluators' statuses.
Result<int> PlayMatch(const MctsOptions& options, int num_games, int parallel_games, uint64_t seed, Evaluator& a,
                      Evaluator& b, SearchStats* stats = nullptr);
// The games `game_indices` of such a match (each seeded and coloured by its
// index as above, so any split of the indices over callers plays the same
// games, and the wins add up to the whole match's). Errors as above, and a
// negative index (InvalidArgument).
Result<int> PlayMatch(const MctsOptions& options, std::span<const int> game_indices, int parallel_games,
                      uint64_t seed, Evaluator& a, Evaluator& b, SearchStats* stats = nullptr);

// A stream seed from the run's seed and a path (phase, generation, game):
// every seed of the loop is one of these.
uint64_t DeriveSeed(uint64_t seed, uint64_t a, uint64_t b = 0);

// The work of one phase, which `LoopConfig::price` turns into emulated seconds.
struct PhaseWork {
  enum class Kind { kSelfPlay, kTrain, kGating, kTargetEval } kind = Kind::kSelfPlay;
  int64_t positions_evaluated = 0;  // network inferences (self-play, gating, target evaluation)
  int64_t examples_trained = 0;     // training examples (forward + backward)
};

struct LoopConfig {
  NetworkConfig net;
  MctsOptions search;  // self-play, gating and target evaluation
  int games_per_generation = 4096;
  int parallel_games = 128;
  int eval_max_batch = 1024;  // the evaluator's largest chunk (NVIDIA --trt_batch=1024)
  // Host threads of the phases that run alone (the set-up's self-play and
  // the target evaluations), at most the kernels' pool's: each takes a share
  // of the cores with its own copy of the network. The games and every
  // result are the same for any value; a generation's self-play and
  // training always take one thread each.
  int host_threads = 2;
  TrainOptions train;
  int steps_per_generation = 222;
  int window_generations = 10;
  int generations = 50;
  float gating_win_rate = 0.49f;
  int gating_games = 100;
  int target_games = 100;
  float target_win_rate = 0.5f;
  // v0.6 trains the policy on the search's visits as they are (true). False
  // (the functional preset's departure; docs/models/minigo.md, "What one
  // generation teaches: to pass") removes the pass share from the target of
  // every example of the set-up and the loop (AppendGameExamples). Part of
  // the recipe key when false.
  bool pass_in_policy_target = true;
  // The checkpoint recipe.
  int bootstrap_games = 8192;
  int bootstrap_readouts = 20;
  int checkpoint_steps = 9383;
  // The target's extra generations (see above).
  int target_generations = 4;
  // The run's seed: the timed generations' games and training, and the
  // target evaluations' games.
  uint64_t seed = 1;
  // The set-up's seed: the checkpoint and the target are made from it alone,
  // so every run of a recipe starts from the same checkpoint and is judged
  // against the same target, as every v0.6 run downloads the same two
  // (minigo-v0.6-loop.md §1).
  uint64_t recipe_seed = 1;
  // Emulated seconds of a phase; null = the host's measured seconds are not
  // used either: every phase is priced at 1 ns per multiply-add (forward 1x,
  // training 3x the forward pass).
  std::function<double(const PhaseWork&)> price;
  // Called (when set) as each part ends: "checkpoint", "target",
  // "generation N", "target eval N"; a caller may time them.
  std::function<void(const std::string&)> progress;
  // Each bad field is an InvalidArgument naming it.
  Status Validate() const;
  // A string that names everything the checkpoint (or, with `target`, the
  // target) made on `cores` emulated cores depends on: the cache key (the
  // cores own the recipe's games, so they decide its evaluators' batches).
  std::string RecipeKey(bool target, int cores) const;
};

struct GenerationEvent {
  int iteration = 0;             // 1-based (epoch_num, save_model's iteration)
  double start_seconds = 0;      // emulated, from run_start
  double save_seconds = 0;       // when save_model(iteration) happened
  double end_seconds = 0;
  // Emulated seconds of its phases: training then gating on one path,
  // self-play beside them (end - start is the longer path).
  double train_seconds = 0, gating_seconds = 0, selfplay_seconds = 0;
  int selfplay_games = 0;
  int64_t selfplay_positions = 0;  // examples the generation added
  double train_loss = 0;           // mean total loss of its steps
  float gating_win_rate = 0;
  bool promoted = false;
};

struct TargetEvalEvent {
  int iteration = 0;  // 0: the checkpoint (a baseline, never a winner)
  int wins = 0;  // of target_games
  float win_rate = 0;
  double seconds = 0;  // emulated seconds of the 100 games (untimed for the score)
};

struct LoopResult {
  bool checkpoint_cached = false, target_cached = false;
  std::vector<GenerationEvent> generations;
  std::vector<TargetEvalEvent> target_evals;
  // The first model to reach target_win_rate, and its save timestamp (the
  // v0.6 score, minigo-v0.6-loop.md §3).
  std::optional<int> winning_iteration;
  double winning_save_seconds = 0;
};

// The whole run in one process on one core (LoopSession, minigo_session.h):
// set-up, every generation, then the target evaluations. `cache_dir` (empty
// = no cache) holds the checkpoint and the target as files named by
// RecipeKey, written to a temporary name and renamed, so a file that exists
// is complete. Errors: a bad config, an
// unreadable or unwritable cache (IOError naming the path), search errors.
Result<LoopResult> RunLoop(const LoopConfig& config, const std::filesystem::path& cache_dir);

// A network's state on disk (parameters, BN statistics, its window of
// examples for a checkpoint): what the cache holds.
Status SaveModel(const std::filesystem::path& path, const Network& net, const ExampleSet* examples);
Status LoadModel(const std::filesystem::path& path, Network* net, ExampleSet* examples);

}  // namespace podbench::minigo
