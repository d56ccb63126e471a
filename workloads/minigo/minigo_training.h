// Training MiniGo's network on self-play positions: the examples of finished
// games, and momentum SGD with the v0.6 learning-rate boundaries on random
// batches of a window of recent games, each example under a random board
// symmetry.
//
// v0.6 (minigo-v0.6.md §Reinforcement-learning loop "Training"): a window of
// the last 10 generations' games, batch 8192, learning rates 0.32 / 0.032 /
// 0.0032 with boundaries at global steps 12500 and 18750, momentum 0.9,
// shuffle buffer 10000 and filter amount 0.5 (half the positions kept).
// Here a step draws its batch uniformly from the window (the shuffle and the
// filter's effect: every position equally likely, each pass seeing about half
// of them), and the symmetry is the augmentation MiniGo's input pipeline
// applies in training (preprocessing.py random rotation).
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "workloads/minigo/go/mcts.h"
#include "workloads/minigo/minigo_network.h"

namespace podbench::minigo {

// Positions with their search distribution and the game's outcome (black's
// side), as flat arrays: features kFeatureSize, pi kNumMoves, z 1 each.
struct ExampleSet {
  std::vector<float> features, pi, z;
  int64_t size() const { return static_cast<int64_t>(z.size()); }
  void Append(const ExampleSet& other);
};

// The examples of one finished game: the position before each move that a
// search chose (every move but a final resignation), its history planes,
// the search's visit distribution, and the winner. With
// `pass_in_policy_target` false (not v0.6; the functional preset) each target's
// share on pass is removed and the rest renormalised (a target that was all
// pass becomes all zero, and teaches the policy nothing). Errors: a record
// whose moves are illegal or whose lengths disagree (InvalidArgument naming
// them).
Status AppendGameExamples(const SelfPlayGame& game, ExampleSet* out, bool pass_in_policy_target = true);

struct TrainOptions {
  int batch = 8192;            // minigo-v0.6.md §Training "batch 8192"
  float momentum = 0.9f;       // §Network "Loss": momentum SGD (0.9)
  std::vector<float> learning_rates = {0.32f, 0.032f, 0.0032f};  // §Training
  std::vector<int64_t> boundaries = {12500, 18750};               // §Training, global steps
  bool random_symmetry = true;
  // Each bad field is an InvalidArgument naming it.
  Status Validate() const;
  // The rate at `global_step`: learning_rates[i] for the i boundaries passed.
  float LearningRate(int64_t global_step) const;
};

// A network with its optimizer state and global step.
struct TrainState {
  std::unique_ptr<Network> net;
  std::vector<float> velocity;  // momentum, like parameters()
  int64_t global_step = 0;
};

// `steps` SGD steps on batches from `window` (drawn from `seed`), advancing
// state->global_step. Returns the losses of each step. Errors: bad options,
// an empty window, steps < 0 (InvalidArgument).
Result<std::vector<Losses>> Train(TrainState* state, const ExampleSet& window, const TrainOptions& options, int steps,
                                  uint64_t seed);

}  // namespace podbench::minigo
