// minigo_generation_probe CHECKPOINT [FIELD=VALUE ...]: what one generation
// of the loop does to a cached checkpoint (a `.ckpt` file that
// minigo_functional_run writes into its cache folder), for finding a
// functional recipe under which the loop learns (docs/models/minigo.md,
// "Why its own games teach it nothing").
//
// 1. Optionally trains the checkpoint `extra_steps` more steps (at
//    `extra_lr`, batch `batch`) on 7/8 of its bootstrap positions; the last
//    1/8 is held out.
// 2. Plays `games` self-play games with it (`readouts`, `virtual_losses`,
//    root noise on unless noise=0).
// 3. Trains one generation: `steps` steps at batch `batch` and rate `lr` on
//    those games alone (with pass_target=0, as the functional preset trains:
//    the search's share on pass removed from every policy target,
//    AppendGameExamples; the default 1 is v0.6's).
// 4. Plays `match_games` evaluation games (PlayMatch: no noise, no soft-pick)
//    at `match_readouts` between the trained model and the model before it
//    (and, with extra_steps, between the longer-trained model and the
//    checkpoint).
// Prints the value head's mean squared error against the game results on
// the bootstrap positions (trained on and held out) and on the self-play
// games, each beside a constant predictor's (1 - mean(z)^2); the self-play
// games' passes and black's share of wins; the mean prior on pass before and
// after the generation; and the match wins. Every draw comes from `seed`.
// Fields: readouts 16, virtual_losses 4, games 32, noise 1, pass_target 1, steps 120,
// batch 64, lr 0.01, extra_steps 0, extra_lr 0.01, match_games 40,
// match_readouts 16, parallel_games 16, seed 7.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "workloads/minigo/minigo_loop.h"
#include "workloads/minigo/minigo_training.h"
#include "workloads/minigo/tool_fields.h"

namespace {

using namespace podbench;
using namespace podbench::minigo;

double Now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Positions [from, to) of `all`.
ExampleSet Slice(const ExampleSet& all, size_t from, size_t to) {
  ExampleSet s;
  s.features.assign(all.features.begin() + static_cast<std::ptrdiff_t>(from * kFeatureSize),
                    all.features.begin() + static_cast<std::ptrdiff_t>(to * kFeatureSize));
  s.pi.assign(all.pi.begin() + static_cast<std::ptrdiff_t>(from * kNumMoves),
              all.pi.begin() + static_cast<std::ptrdiff_t>(to * kNumMoves));
  s.z.assign(all.z.begin() + static_cast<std::ptrdiff_t>(from), all.z.begin() + static_cast<std::ptrdiff_t>(to));
  return s;
}

struct HeadStats {
  double value_mse = 0, constant_mse = 0;  // against z; the constant predictor mean(z)
  double pass_prior = 0;                   // mean policy on pass
  double pass_top = 0;                     // share of positions where pass is the most likely move
};

// The heads of `net` on every position of `set`, evaluated 64 at a time.
Result<HeadStats> Measure(Network* net, const ExampleSet& set) {
  const int n = static_cast<int>(set.size());
  std::vector<float> policy(static_cast<size_t>(n) * kNumMoves), value(static_cast<size_t>(n));
  NetworkEvaluator eval(net, 64);
  PODBENCH_RETURN_IF_ERROR(eval.Evaluate(set.features, n, policy, value));
  HeadStats h;
  if (n == 0) return h;
  double mean_z = 0;
  for (int j = 0; j < n; ++j) {
    const float* p = policy.data() + static_cast<size_t>(j) * kNumMoves;
    const double z = set.z[static_cast<size_t>(j)], v = value[static_cast<size_t>(j)];
    h.value_mse += (v - z) * (v - z);
    mean_z += z;
    h.pass_prior += p[kPass];
    h.pass_top += std::max_element(p, p + kNumMoves) - p == kPass ? 1 : 0;
  }
  mean_z /= n;
  h.value_mse /= n;
  h.constant_mse = 1 - mean_z * mean_z;
  h.pass_prior /= n;
  h.pass_top /= n;
  return h;
}

// One learning rate for every step, at `batch`.
TrainOptions OneRate(int batch, double lr) {
  TrainOptions o;
  o.batch = batch;
  o.learning_rates = {static_cast<float>(lr)};
  o.boundaries = {};
  return o;
}

// The loop's evaluator batch, for self-play and matches.
const int kEvalMaxBatch = LoopConfig{}.eval_max_batch;

// a's wins in `games` evaluation games against b (PlayMatch).
Result<int> Match(const MctsOptions& options, int games, int parallel, uint64_t seed, Network* a, Network* b) {
  NetworkEvaluator ea(a, kEvalMaxBatch), eb(b, kEvalMaxBatch);
  return PlayMatch(options, games, parallel, seed, ea, eb);
}

void PrintValue(const char* what, const HeadStats& h) {
  std::printf("  value MSE on %s: %.3f (constant predictor %.3f)\n", what, h.value_mse, h.constant_mse);
}

Status Run(const std::string& checkpoint, const std::map<std::string, double>& f) {
  auto get = [&](const char* k) { return f.at(k); };
  auto net = Network::Create(NetworkConfig{}, 0);
  if (!net.ok()) return net.status();
  ExampleSet boot;
  PODBENCH_RETURN_IF_ERROR(LoadModel(checkpoint, net->get(), &boot));
  Network& ckpt = **net;
  const uint64_t seed = static_cast<uint64_t>(get("seed"));
  const size_t cut = static_cast<size_t>(boot.size()) * 7 / 8;
  const ExampleSet train_part = Slice(boot, 0, cut), held_out = Slice(boot, cut, static_cast<size_t>(boot.size()));
  std::printf("checkpoint %s: %lld bootstrap positions\n", checkpoint.c_str(), static_cast<long long>(boot.size()));

  TrainState state;
  state.net = ckpt.Clone();
  const int batch = static_cast<int>(get("batch"));
  if (get("extra_steps") > 0) {
    const double t0 = Now();
    auto losses = Train(&state, train_part, OneRate(batch, get("extra_lr")), static_cast<int>(get("extra_steps")),
                        DeriveSeed(seed, 1));
    if (!losses.ok()) return losses.status().WithContext("extra training");
    std::printf("trained %d more steps on 7/8 of the bootstrap positions at lr %g (%.1f s)\n",
                static_cast<int>(get("extra_steps")), get("extra_lr"), Now() - t0);
  }
  Network* model = state.net.get();
  PODBENCH_ASSIGN_OR_RETURN(const HeadStats on_train, Measure(model, train_part));
  PrintValue("the bootstrap positions trained on (7/8)", on_train);
  PODBENCH_ASSIGN_OR_RETURN(const HeadStats on_held_out, Measure(model, held_out));
  PrintValue("held-out bootstrap positions (1/8)", on_held_out);

  MctsOptions search;
  search.num_readouts = static_cast<int>(get("readouts"));
  search.virtual_losses = static_cast<int>(get("virtual_losses"));
  search.inject_noise = get("noise") != 0;
  const int games = static_cast<int>(get("games")), parallel = static_cast<int>(get("parallel_games"));
  if (games < 1) return Status::InvalidArgument("games = " + std::to_string(games) + ": must be >= 1");
  NetworkEvaluator self_eval(model, kEvalMaxBatch);
  double t0 = Now();
  auto played = PlaySelfPlayGames(search, games, parallel, DeriveSeed(seed, 2), self_eval);
  if (!played.ok()) return played.status().WithContext("self-play");
  ExampleSet own;
  int passes = 0, black_wins = 0;
  for (const SelfPlayGame& g : *played) {
    PODBENCH_RETURN_IF_ERROR(AppendGameExamples(g, &own, get("pass_target") != 0));
    passes += static_cast<int>(std::count(g.moves.begin(), g.moves.end(), kPass));
    black_wins += g.winner == 1;
  }
  std::printf("self-play: %d games at %d readouts, %d virtual losses (%.1f s): %.2f passes a game, black wins %.2f\n",
              games, search.num_readouts, search.virtual_losses, Now() - t0, static_cast<double>(passes) / games,
              static_cast<double>(black_wins) / games);
  PODBENCH_ASSIGN_OR_RETURN(const HeadStats before, Measure(model, own));
  PrintValue("its own self-play games", before);

  MctsOptions match;
  match.num_readouts = static_cast<int>(get("match_readouts"));
  match.virtual_losses = search.virtual_losses;
  const int match_games = static_cast<int>(get("match_games"));
  if (get("extra_steps") > 0) {
    auto w = Match(match, match_games, parallel, DeriveSeed(seed, 3), model, &ckpt);
    if (!w.ok()) return w.status().WithContext("match against the checkpoint");
    std::printf("longer-trained model against the checkpoint: %d of %d\n", *w, match_games);
  }

  std::unique_ptr<Network> previous = model->Clone();
  auto losses = Train(&state, own, OneRate(batch, get("lr")), static_cast<int>(get("steps")), DeriveSeed(seed, 4));
  if (!losses.ok()) return losses.status().WithContext("the generation's training");
  PODBENCH_ASSIGN_OR_RETURN(const HeadStats after, Measure(model, own));
  std::printf("one generation: %d steps at batch %d, lr %g on %lld positions\n", static_cast<int>(get("steps")),
              batch, get("lr"), static_cast<long long>(own.size()));
  std::printf("  prior on pass over those positions: %.3f -> %.3f; pass the most likely move in %.1f%% -> %.1f%%\n",
              before.pass_prior, after.pass_prior, 100 * before.pass_top, 100 * after.pass_top);
  auto w = Match(match, match_games, parallel, DeriveSeed(seed, 5), model, previous.get());
  if (!w.ok()) return w.status().WithContext("match against the model before the generation");
  std::printf("after the generation against before it: %d of %d (evaluation games at %d readouts)\n", *w, match_games,
              match.num_readouts);
  return Status::Ok();
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, double> fields = {
      {"readouts", 16},     {"virtual_losses", 4}, {"games", 32},       {"noise", 1},
      {"steps", 120},       {"batch", 64},         {"lr", 0.01},        {"extra_steps", 0},
      {"extra_lr", 0.01},   {"match_games", 40},   {"match_readouts", 16}, {"parallel_games", 16},
      {"seed", 7},          {"pass_target", 1},
  };
  if (argc < 2) {
    std::fprintf(stderr, "usage: minigo_generation_probe CHECKPOINT [FIELD=VALUE ...]\n");
    return 2;
  }
  const podbench::Status parsed =
      podbench::minigo::ParseToolFields("minigo_generation_probe", std::vector<std::string>(argv + 2, argv + argc), &fields);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s\n", parsed.message().c_str());
    return 2;
  }
  for (const auto& [key, v] : fields) {
    if (!(v >= 0)) {
      std::fprintf(stderr, "minigo_generation_probe: %s = %g is below 0\n", key.c_str(), v);
      return 2;
    }
  }
  const Status s = Run(argv[1], fields);
  if (!s.ok()) {
    std::fprintf(stderr, "minigo_generation_probe: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
