// MiniGo's v0.6 loop cut into the pieces a harness session calls one at a
// time (the "minigo" plugin's functional Session, and RunLoop for the
// minigo_functional_run tool):
//   Initialize()        the untimed set-up: the checkpoint and the target,
//                       each loaded from the cache or made by its recipe
//                       (minigo_loop.h) and cached;
//   Generation(g)       timed generation g: self-play by the best model
//                       beside training the next one on the window, its
//                       save, then gating (promoted at gating_win_rate);
//   EvaluateTarget(g)   model g against the target: target_games games.
//
// Emulated cores own games (issue 37): game k of a generation's self-play,
// of a gating match, of a target evaluation and of the checkpoint's
// bootstrap is played by core k mod `cores`, seeded from (seed, phase,
// generation, k) alone, each core's games `parallel_games` at a time through
// one evaluator of its own. A rank of `ranks` plays only its cores' games
// (topology::CoresOfRank); the games' examples are all-gathered and joined
// in game order, so every rank holds the same window, and win counts and
// positions are summed. Training is replicated: every rank trains the same
// model on the same window with the same seed, as v0.6 trains on one device
// (NVIDIA's train.py is one TensorFlow process beside the self-play
// processes, minigo-v0.6-loop.md §2; there is no data-parallel training to
// emulate). So the results depend on the seed and `cores`, never on how
// many ranks share the cores.
//
// Set-up: the checkpoint and the target come from config.recipe_seed alone,
// so runs of other seeds share them (and their cache files).
// Cache (`cache_dir`, empty = none): files named by LoopConfig::RecipeKey;
// a part counts as cached only when every rank has its file (ranks agree by
// an all-gather, so they all make it or all load it); each rank writes
// through a temporary name of its own and renames, so ranks on one machine
// never see a partial file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "topology/rank_group.h"
#include "workloads/minigo/minigo_loop.h"

namespace podbench::minigo {

// The games core `core` of `cores` plays among `games` (0-based): k with
// k mod cores == core, ascending. A rank plays those of its cores only.
std::vector<int> GamesOfCore(int games, int cores, int core);

struct SetupEvent {
  bool checkpoint_cached = false, target_cached = false;
  // Emulated seconds of the recipes' training (their self-play is not
  // priced: it varies with the games, and the interval is untimed), the
  // same whether or not the parts came from the cache.
  double seconds = 0;
};

class LoopSession {
 public:
  // InvalidArgument for a bad config or cores < 1. `ranks` null = one
  // process holds every core.
  static Result<std::unique_ptr<LoopSession>> Create(const LoopConfig& config, int cores,
                                                     std::shared_ptr<topology::RankGroup> ranks,
                                                     std::filesystem::path cache_dir);
  ~LoopSession();

  // Once, first. Errors: an unreadable or unwritable cache (IOError or
  // Corruption naming the path), search errors, the ranks' errors.
  Result<SetupEvent> Initialize();
  // REQUIRES: Initialize done and g = the last generation + 1 (else
  // FailedPrecondition). The emulated clock starts at 0 (run_start).
  Result<GenerationEvent> Generation(int g);
  // REQUIRES: Generation(g) done, or g = 0 (the checkpoint, the baseline a
  // report sets beside the saved models) after Initialize (else
  // FailedPrecondition). Its `seconds` price the games; nothing here moves
  // the generations' clock.
  Result<TargetEvalEvent> EvaluateTarget(int g);
  // base/hash.h FingerprintOf the latest model's parameters and BN
  // statistics (the model Generation last trained).
  std::string ParameterFingerprint() const;

  const LoopConfig& config() const { return c_; }

 private:
  struct State;
  LoopSession(const LoopConfig& config, int cores, std::shared_ptr<topology::RankGroup> ranks,
              std::filesystem::path cache_dir);
  const LoopConfig c_;
  const int cores_;
  const std::shared_ptr<topology::RankGroup> ranks_;
  const std::filesystem::path cache_dir_;
  std::unique_ptr<State> s_;
};

}  // namespace podbench::minigo
