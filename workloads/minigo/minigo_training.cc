#include "workloads/minigo/minigo_training.h"

#include <algorithm>
#include <array>
#include <deque>
#include <string>

#include "kernels/ops/optimizers.h"
#include "workloads/minigo/go/features.h"
#include "workloads/minigo/go/random.h"

namespace podbench::minigo {

void ExampleSet::Append(const ExampleSet& other) {
  features.insert(features.end(), other.features.begin(), other.features.end());
  pi.insert(pi.end(), other.pi.begin(), other.pi.end());
  z.insert(z.end(), other.z.begin(), other.z.end());
}

Status AppendGameExamples(const SelfPlayGame& game, ExampleSet* out, bool pass_in_policy_target) {
  size_t searched = game.moves.size();
  if (searched > 0 && game.moves.back() == kResign) --searched;
  if (game.search_pi.size() < searched) {
    return Status::InvalidArgument("minigo game record: " + std::to_string(searched) + " moves but " +
                                   std::to_string(game.search_pi.size()) + " search distributions");
  }
  if (game.winner != 1 && game.winner != -1) {
    return Status::InvalidArgument("minigo game record: winner " + std::to_string(game.winner) + " is not +1 or -1");
  }
  std::deque<Position> history;  // newest first
  history.emplace_front();
  std::array<const Position*, kHistory> h{};
  for (size_t i = 0; i < searched; ++i) {
    size_t k = 0;
    for (const Position& p : history) h[k++] = &p;
    const size_t at = out->features.size();
    out->features.resize(at + kFeatureSize);
    ExtractFeaturesUnchecked(std::span(h.data(), k), out->features.data() + at);
    out->pi.insert(out->pi.end(), game.search_pi[i].begin(), game.search_pi[i].end());
    if (!pass_in_policy_target) {
      float* pi = out->pi.data() + out->pi.size() - kNumMoves;
      const float rest = 1.f - pi[kPass];
      pi[kPass] = 0.f;
      if (rest > 0) std::for_each(pi, pi + kNumMoves, [rest](float& x) { x /= rest; });
    }
    out->z.push_back(static_cast<float>(game.winner));
    Position next = history.front();
    Status s = next.Play(game.moves[i]);
    if (!s.ok()) return s.WithContext("minigo game record: move " + std::to_string(i));
    history.push_front(next);
    if (history.size() > kHistory) history.pop_back();
  }
  return Status::Ok();
}

Status TrainOptions::Validate() const {
  if (batch < 1) return Status::InvalidArgument("minigo training batch = " + std::to_string(batch) + ": must be >= 1");
  if (!(momentum >= 0 && momentum < 1)) {
    return Status::InvalidArgument("minigo training momentum = " + std::to_string(momentum) + ": must be in [0, 1)");
  }
  if (learning_rates.size() != boundaries.size() + 1) {
    return Status::InvalidArgument("minigo training: " + std::to_string(learning_rates.size()) +
                                   " learning rates need " + std::to_string(learning_rates.size() - 1) +
                                   " boundaries, not " + std::to_string(boundaries.size()));
  }
  for (float lr : learning_rates)
    if (!(lr > 0)) return Status::InvalidArgument("minigo training learning rate " + std::to_string(lr) + ": must be > 0");
  for (size_t i = 1; i < boundaries.size(); ++i)
    if (boundaries[i] <= boundaries[i - 1]) return Status::InvalidArgument("minigo training boundaries must increase");
  return Status::Ok();
}

float TrainOptions::LearningRate(int64_t global_step) const {
  size_t i = 0;
  while (i < boundaries.size() && global_step >= boundaries[i]) ++i;
  return learning_rates[i];
}

Result<std::vector<Losses>> Train(TrainState* state, const ExampleSet& window, const TrainOptions& options, int steps,
                                  uint64_t seed) {
  PODBENCH_RETURN_IF_ERROR(options.Validate());
  if (steps < 0) return Status::InvalidArgument("minigo training steps = " + std::to_string(steps) + ": must be >= 0");
  if (window.size() == 0 && steps > 0) return Status::InvalidArgument("minigo training: the window holds no positions");
  Network& net = *state->net;
  state->velocity.resize(net.parameters().size(), 0.f);
  const size_t b = static_cast<size_t>(options.batch);
  std::vector<float> f(b * kFeatureSize), pi(b * kNumMoves), z(b), grad;
  std::vector<Losses> losses;
  Rng rng(seed);
  for (int s = 0; s < steps; ++s) {
    for (size_t i = 0; i < b; ++i) {
      const size_t e = static_cast<size_t>(rng.UniformInt(static_cast<int>(window.size())));
      const int sym = options.random_symmetry ? rng.UniformInt(kNumSymmetries) : 0;
      ApplySymmetryToFeatures(sym, window.features.data() + e * kFeatureSize, f.data() + i * kFeatureSize);
      ApplySymmetryToPolicy(sym, window.pi.data() + e * kNumMoves, pi.data() + i * kNumMoves);
      z[i] = window.z[e];
    }
    losses.push_back(net.ComputeGradients(f.data(), pi.data(), z.data(), options.batch, &grad));
    // The L2 term is in the gradient already (minigo_network.h).
    kernels::SgdMomentumUpdate(net.parameters().data(), grad.data(), state->velocity.data(), net.num_parameters(),
                               options.LearningRate(state->global_step), options.momentum, 0.f);
    ++state->global_step;
  }
  return losses;
}

}  // namespace podbench::minigo
