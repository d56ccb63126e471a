#include "workloads/minigo/minigo_functional_preset.h"

namespace podbench::minigo {

LoopConfig FunctionalPreset(uint64_t seed) {
  LoopConfig c;
  // The network at its real size (NetworkConfig's defaults are v0.6's).
  c.search.num_readouts = 16;   // v0.6: 240 (selfplay.flags)
  c.search.virtual_losses = 4;  // v0.6: 8
  c.games_per_generation = 16;  // v0.6: 4096 (16 processes x 256)
  c.parallel_games = 16;        // v0.6: 128 per process at NVIDIA
  c.eval_max_batch = 64;        // v0.6: 1024 (--trt_batch)
  c.train.batch = 64;           // v0.6: 8192
  // v0.6: 0.32 / 0.032 / 0.0032 at steps 12500 / 18750 from step 9383; here
  // the same shape, the rates scaled for batch 64, the boundaries placed as
  // far after the checkpoint as v0.6's first is (about 14 generations).
  c.train.learning_rates = {0.02f, 0.002f, 0.0002f};
  c.train.boundaries = {200 + 14 * 40, 200 + 24 * 40};
  c.steps_per_generation = 40;  // v0.6: ~222 (one pass over the window x filter 0.5 / 8192)
  c.window_generations = 4;     // v0.6: 10
  c.generations = 8;            // v0.6: 50 (NVIDIA), 30 (Intel)
  c.gating_games = 8;           // v0.6: 100
  c.gating_win_rate = 0.49f;    // v0.6: 0.49
  c.target_games = 100;         // v0.6: 100
  c.target_win_rate = 0.5f;     // v0.6: 0.50
  c.bootstrap_games = 64;       // v0.6 recipe: 8192 (bootstrap.flags)
  c.bootstrap_readouts = 8;     // v0.6 recipe: 20
  c.checkpoint_steps = 200;     // v0.6 checkpoint: global step 9383
  c.target_generations = 4;     // v0.6 target: a model of a longer run (gs://minigo-pub/ml_perf/target/9)
  // v0.6 trains the policy on the search's visit shares, pass included. At
  // 16 readouts and a value head trained on a few hundred outcomes, that
  // share is mostly the pass-reply artefact (a pass's second visit is a
  // terminal result), and one generation on it teaches the network to pass
  // and lose (docs/models/minigo.md); without it the loop learns.
  c.pass_in_policy_target = false;
  c.seed = seed;
  return c;
}

}  // namespace podbench::minigo
