// "minigo": MLPerf v0.6 MiniGo, 9x9 Go by reinforcement learning; the
// target is a model that wins at least 50% of 100 games against a fixed
// target model, timed to that model's save (eval_result's timestamp).
//
// Projected mode is the shared composition (workloads/projected_runs.h) of
// what minigo_projection.h gives it: a label is a generation (222 training
// steps at batch 8192 on a training sub-slice, then 100 gating games; 4096
// self-play games at 240 readouts and 8 virtual losses beside them on the
// other cores, the tree search on the hosts), priced by games.h; the
// winning generation is drawn per run seed from NVIDIA's and Intel's 20
// v0.6 runs, and the win rates logged before it are MODELLED. Google ran no
// MiniGo in v0.6: no published TPU-v3 score exists to compare with. Facts:
// ../shared/reference/minigo-v0.6.md ("ref") and minigo-v0.6-loop.md
// ("loop §").
//
// Functional mode is the real loop on the Go engine (go/) at the sizes of
// the `functional` preset (minigo_functional_preset.h, each number beside
// v0.6's): a LoopSession (minigo_session.h) whose Initialize is the untimed
// checkpoint and target (cached by recipe and seed), whose generation g is
// epoch g (self-play beside training, save_model, gating) and whose
// evaluation after epoch g is model g's games against the target, beside
// training as v0.6 plays them after it; the harness logs every line and
// scores the winning model's save. Under `mpirun -np R` each rank plays its
// cores' games and trains the same model (minigo_session.h says why).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "workloads/claims.h"
#include "workloads/minigo/minigo_default_preset.h"
#include "workloads/minigo/minigo_functional_preset.h"
#include "workloads/minigo/minigo_graph.h"
#include "workloads/minigo/minigo_projection.h"
#include "workloads/minigo/minigo_session.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"
#include "workloads/workload.h"

namespace podbench::workloads {
namespace {

using namespace podbench::minigo;  // NOLINT: the model's constants

const char* const kClosedRule = "v0.6 closed division: the reference's value (ml_perf/flags/9)";

// "0.32,0.032,0.0032": the learning rates between the boundaries.
Result<std::vector<double>> LearningRates(const Hyperparameters& hp) {
  std::vector<double> out;
  const std::string& text = hp.String("learning_rates");
  size_t pos = 0;
  while (pos <= text.size()) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, comma - pos);
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || end != item.c_str() + item.size() || !(v > 0) || !std::isfinite(v)) {
      return Status::InvalidArgument("learning_rates '" + text + "': '" + item +
                                     "' is not a positive number (want a comma-separated list, e.g. "
                                     "0.32,0.032,0.0032)");
    }
    out.push_back(v);
    pos = comma + 1;
  }
  return out;
}

// The loop a functional run of `hp` runs with `seed`; the search's other
// options (noise, temperature cutoff, resignation) keep v0.6's values
// (MctsOptions' defaults).
LoopConfig LoopConfigOf(const Hyperparameters& hp, uint64_t seed) {
  LoopConfig c;
  c.net.conv_width = static_cast<int>(hp.Int("functional_conv_width"));
  c.net.trunk_layers = static_cast<int>(hp.Int("functional_trunk_layers"));
  c.net.fc_width = static_cast<int>(hp.Int("functional_fc_width"));
  c.net.value_cost_weight = static_cast<float>(hp.Float("value_cost_weight"));
  c.net.l2_strength = static_cast<float>(hp.Float("l2_strength"));
  c.search.num_readouts = static_cast<int>(hp.Int("num_readouts"));
  c.search.virtual_losses = static_cast<int>(hp.Int("virtual_losses"));
  c.games_per_generation = static_cast<int>(hp.Int("games_per_generation"));
  c.parallel_games = static_cast<int>(hp.Int("parallel_games"));
  c.eval_max_batch = static_cast<int>(hp.Int("functional_eval_max_batch"));
  c.train.batch = static_cast<int>(hp.Int("global_batch_size"));
  c.train.momentum = static_cast<float>(hp.Float("momentum"));
  c.train.learning_rates.clear();
  if (auto lrs = LearningRates(hp); lrs.ok()) {
    for (double lr : *lrs) c.train.learning_rates.push_back(static_cast<float>(lr));
  }
  if (auto b = ParseIntList("opt_learning_rate_decay_boundary_steps",
                            hp.String("opt_learning_rate_decay_boundary_steps"));
      b.ok()) {
    c.train.boundaries = *b;
  }
  c.steps_per_generation = static_cast<int>(hp.Int("functional_steps_per_generation"));
  c.window_generations = static_cast<int>(hp.Int("window_generations"));
  c.generations = static_cast<int>(hp.Int("max_generations"));
  c.gating_win_rate = static_cast<float>(hp.Float("gating_win_rate"));
  c.gating_games = static_cast<int>(hp.Int("gating_games"));
  c.target_games = static_cast<int>(hp.Int("functional_target_games"));
  c.target_win_rate = static_cast<float>(hp.Float("target_win_rate"));
  c.bootstrap_games = static_cast<int>(hp.Int("functional_bootstrap_games"));
  c.bootstrap_readouts = static_cast<int>(hp.Int("functional_bootstrap_readouts"));
  c.checkpoint_steps = static_cast<int>(hp.Int("functional_checkpoint_steps"));
  c.target_generations = static_cast<int>(hp.Int("functional_target_generations"));
  c.recipe_seed = static_cast<uint64_t>(hp.Int("functional_recipe_seed"));
  c.pass_in_policy_target = hp.Bool("functional_pass_in_policy_target");
  c.seed = seed;
  return c;
}

// An upper bound of a functional run's host memory: the window (the last
// window_generations generations and the checkpoint's games, each game at
// most 2 x 81 positions: go/board.h's move limit) of examples, and the
// activations and their gradients of a training batch and an evaluation
// batch (four conv_width x 81 tensors a convolution, the trunk's 2 a block
// and the input's), as fp32.
int64_t FunctionalHostBytes(const LoopConfig& c) {
  const double example = 4.0 * (kFeatureSize + kNumMoves + 1);
  const double games = std::max(c.games_per_generation, c.bootstrap_games);
  const double window = (c.window_generations + 1.0) * games * 2 * kNumPoints * example;
  const double activations = (2.0 * c.net.trunk_layers + 1) * 4 * c.net.conv_width * kNumPoints * 4;
  const double train = static_cast<double>(c.train.batch) * (example + 2 * activations);
  const double eval = static_cast<double>(c.eval_max_batch) * (example + activations);
  return static_cast<int64_t>(std::min(window + train + eval, 9e18));
}

// A number as the shortest text that reads back as the same float.
std::string FloatText(float v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// The `functional` preset's values: the loop `c` as hyperparameters (the
// inverse of LoopConfigOf for the fields the preset sets).
std::map<std::string, HpValue> FunctionalValues(const LoopConfig& c) {
  std::string lrs, bounds;
  for (float lr : c.train.learning_rates) lrs += (lrs.empty() ? "" : ",") + FloatText(lr);
  for (int64_t b : c.train.boundaries) bounds += (bounds.empty() ? "" : ",") + std::to_string(b);
  return {
      {"global_batch_size", int64_t{c.train.batch}},
      {"virtual_losses", int64_t{c.search.virtual_losses}},
      {"opt_learning_rate_decay_boundary_steps", bounds},
      {"learning_rates", lrs},
      {"games_per_generation", int64_t{c.games_per_generation}},
      {"num_readouts", int64_t{c.search.num_readouts}},
      {"parallel_games", int64_t{c.parallel_games}},
      {"window_generations", int64_t{c.window_generations}},
      {"gating_games", int64_t{c.gating_games}},
      {"gating_win_rate", std::stod(FloatText(c.gating_win_rate))},
      {"max_generations", int64_t{c.generations}},
      {"functional_steps_per_generation", int64_t{c.steps_per_generation}},
      {"functional_target_games", int64_t{c.target_games}},
      {"functional_bootstrap_games", int64_t{c.bootstrap_games}},
      {"functional_bootstrap_readouts", int64_t{c.bootstrap_readouts}},
      {"functional_checkpoint_steps", int64_t{c.checkpoint_steps}},
      {"functional_target_generations", int64_t{c.target_generations}},
      {"functional_eval_max_batch", int64_t{c.eval_max_batch}},
      {"functional_recipe_seed", static_cast<int64_t>(c.recipe_seed)},
      {"functional_pass_in_policy_target", c.pass_in_policy_target},
  };
}

// What functional mode cannot honour, refused naming the hyperparameter and
// the rule; then the loop's own checks.
Status ValidateFunctional(const Hyperparameters& hp, const SliceInfo& slice) {
  (void)slice;  // any slice: game k is core k mod cores, however many cores
  if (hp.Float("filter_amount") != kMiniGoFilterAmount) {
    return Status::InvalidArgument(
        "filter_amount " + HpToString(hp.values().at("filter_amount")) +
        ": functional mode draws each batch uniformly from the window, which is what v0.6's filter of 0.5 "
        "with its shuffle gives; the share of the window a generation sees is set by "
        "functional_steps_per_generation");
  }
  return LoopConfigOf(hp, 0).Validate();
}

// Functional mode: the loop, a generation an epoch.
class FunctionalSession : public Session {
 public:
  FunctionalSession(std::unique_ptr<LoopSession> loop, std::function<void(const StepDone&)> on_step)
      : loop_(std::move(loop)), on_step_(std::move(on_step)) {}

  Result<double> Initialize() override {
    PODBENCH_ASSIGN_OR_RETURN(const SetupEvent e, loop_->Initialize());
    return e.seconds;
  }

  // Generations [first, first + epochs). Each lasts the longer of its paths
  // (loop §2): training and gating (compute), and self-play beside them (the
  // training path's wait for it is idle). save_model is logged when the
  // generation's training ends, and the run's end (the winner's save) is
  // that time too.
  Result<BlockResult> TrainBlock(int64_t first, int64_t epochs) override {
    BlockResult b;
    double loss_sum = 0;
    for (int64_t g = first; g < first + epochs; ++g) {
      PODBENCH_ASSIGN_OR_RETURN(const GenerationEvent ev, loop_->Generation(static_cast<int>(g)));
      const double path = ev.train_seconds + ev.gating_seconds;
      b.time.mxu_s += path;
      b.time.idle_s += std::max(0.0, (ev.end_seconds - ev.start_seconds) - path);
      const int64_t steps = loop_->config().steps_per_generation;
      b.steps += steps;
      loss_sum += ev.train_loss;
      for (int64_t i = 1; i <= steps; ++i) on_step_({g, i, steps});
      // loop §2: the model is saved when its training ends, before gating.
      const double saved = ev.save_seconds - ev.start_seconds;
      b.events.push_back(SaveModelEvent(g).AtEpochOffset(g, saved));
      b.model_saved_offset_s = saved;
      if (!std::isfinite(ev.train_loss)) {
        b.diverged = true;
        break;
      }
    }
    b.mean_loss = loss_sum / static_cast<double>(epochs);
    return b;
  }

  // Model `epoch` against the target (loop §3).
  Result<EvalResult> Evaluate(int64_t epoch) override {
    PODBENCH_ASSIGN_OR_RETURN(const TargetEvalEvent t, loop_->EvaluateTarget(static_cast<int>(epoch)));
    EvalResult r;
    const double rate = static_cast<double>(t.wins) / static_cast<double>(loop_->config().target_games);
    r.metrics["win_rate"] = rate;
    r.emulated_s = t.seconds;
    r.events = MiniGoLogLines().evaluation(epoch, rate >= kMiniGoTargetWinRate);
    return r;
  }

  Result<std::string> ParameterFingerprint() const override { return loop_->ParameterFingerprint(); }

 private:
  std::unique_ptr<LoopSession> loop_;
  std::function<void(const StepDone&)> on_step_;
};

class MiniGoWorkload : public Workload {
 public:
  std::vector<HyperparameterSpec> HyperparameterSpecs() const override {
    std::vector<HyperparameterSpec> s;
    // Logged under their v0.6 keys: the four the 0.6.0 minigo rules require
    // exactly once (global_batch_size, virtual_losses here; the learning
    // rates and their boundaries as lists, loop §3).
    auto& batch = s.emplace_back(Spec("global_batch_size", kMiniGoTrainBatch,
                                      "positions per training step (ref: train_batch_size 8192)"));
    batch.min = 1;
    batch.max = 1 << 20;
    batch.rule = "v0.6 closed division: any constant batch size";
    auto& vl = s.emplace_back(Spec("virtual_losses", kMiniGoVirtualLosses,
                                   "leaves one game adds to an inference batch per search round (ref: 8)"));
    vl.min = 1;
    vl.max = 64;
    vl.rule = kClosedRule;
    auto& bounds = s.emplace_back(Spec("opt_learning_rate_decay_boundary_steps", std::string("12500,18750"),
                                       "global steps at which the learning rate steps down (ref: 12500, 18750; "
                                       "the provided checkpoint is at step 9383, loop §1)"));
    bounds.int_list = true;
    bounds.min = 1;
    bounds.max = 1e9;
    auto& lrs = s.emplace_back(Spec("learning_rates", std::string("0.32,0.032,0.0032"),
                                    "momentum-SGD learning rates before, between and after the boundaries, "
                                    "logged as opt_base_learning_rate (ref: 0.32, 0.032, 0.0032)"));
    lrs.log = false;  // logged as the list opt_base_learning_rate (Describe's init_events)
    // The loop's flags (ref; loop §2, §3). Not logged: v0.6 MiniGo logs none.
    auto flag = [&](const char* name, HpValue v, const char* help, double min, double max) -> HyperparameterSpec& {
      auto& f = AddUnlogged(s, Spec(name, std::move(v), help));
      f.min = min;
      f.max = max;
      return f;
    };
    flag("games_per_generation", kMiniGoGamesPerGeneration,
         "self-play games a generation (ref: 4096, 16 processes x 256 at NVIDIA, loop §2)", 1, 1 << 22);
    flag("num_readouts", kMiniGoReadoutsPerMove, "MCTS readouts per move (ref: 240)", 1, 1 << 16);
    flag("parallel_games", kMiniGoParallelGames,
         "games a self-play process (projected: a core) plays at once, its leaves batched (NVIDIA: 128)", 1, 1 << 16);
    flag("window_generations", kMiniGoWindowGenerations,
         "training window: the last N generations' games (ref: 10)", 1, 1000);
    flag("filter_amount", kMiniGoFilterAmount, "share of the window's positions trained on (ref: 0.5)", 1e-3, 1);
    flag("gating_games", kMiniGoGatingGames, "games of the new model against the best (ref: 100)", 1, 1 << 16);
    flag("gating_win_rate", kMiniGoGatingWinRate, "win rate that makes the new model the best (ref: 0.49)", 0, 1);
    flag("max_generations", kMiniGoIterations,
         "abort after this many generations (ref: iterations 50 at NVIDIA, 30 at Intel)", 1, 1000);
    auto fixed = [&](const char* name, double v, const char* help) {
      auto& f = AddUnlogged(s, Spec(name, v, help));
      f.tunable = false;
      f.rule = kClosedRule;
    };
    fixed("momentum", kMiniGoMomentum, "momentum of SGD (ref: 0.9)");
    fixed("l2_strength", kMiniGoL2, "L2 weight decay (ref: 1e-4)");
    fixed("value_cost_weight", kMiniGoValueCostWeight, "weight of the value loss (ref: 0.25)");
    fixed("target_win_rate", kMiniGoTargetWinRate, "v0.6 quality target: wins against the target model (0.5)");
    // Projected mode: podbench's choices and what-ifs (none is an MLPerf
    // hyperparameter).
    flag("projected_train_cores", int64_t{8},
         "projected mode: cores of the sub-slice (a tpu-v3-N of the pod) that trains and gates; the rest play "
         "self-play games beside it (the whole slice: they take turns). podbench's choice, nothing published",
         8, 2048);
    flag("projected_search_threads_per_core", int64_t{12},
         "projected mode: host threads that run each core's tree search (12: a host's 96 vcpus over its 8 cores)",
         1, 96);
    // Functional mode: the loop's sizes that no v0.6 flag names (the
    // `functional` preset sets them; minigo_functional_preset.cc gives each
    // beside its v0.6 value).
    const LoopConfig f = FunctionalPreset(1);
    flag("functional_steps_per_generation", int64_t{f.steps_per_generation},
         "functional mode: training steps a generation (v0.6: ~222, one pass over the window x filter 0.5)", 0,
         1 << 20);
    flag("functional_target_games", int64_t{f.target_games},
         "functional mode: games of each model against the target (v0.6: 100)", 1, 1 << 16);
    flag("functional_bootstrap_games", int64_t{f.bootstrap_games},
         "functional mode: the checkpoint recipe's self-play games by a random model (v0.6 bootstrap: 8192)", 1,
         1 << 22);
    flag("functional_bootstrap_readouts", int64_t{f.bootstrap_readouts},
         "functional mode: readouts per move of the bootstrap games (v0.6 bootstrap: 20)", 1, 1 << 16);
    flag("functional_checkpoint_steps", int64_t{f.checkpoint_steps},
         "functional mode: training steps that make the checkpoint (v0.6 checkpoint: global step 9383)", 0, 1e9);
    flag("functional_target_generations", int64_t{f.target_generations},
         "functional mode: generations past the checkpoint that make the target model (v0.6: a downloaded model "
         "of a longer run)", 0, 1000);
    flag("functional_recipe_seed", static_cast<int64_t>(f.recipe_seed),
         "functional mode: seed of the checkpoint and target recipes, the same for every run as v0.6's "
         "downloaded pair is (the run's --seed plays the timed games)",
         0, int64_t{1} << 62);
    AddUnlogged(s, Spec("functional_pass_in_policy_target", true,
                        "functional mode: keep the search's share of visits on pass in each policy target, as "
                        "v0.6 does (true); false removes it and renormalises the rest, for the checkpoint, the "
                        "target and the loop (the functional preset: at its 16 readouts that share is a search "
                        "artefact that teaches the network to pass; docs/models/minigo.md)"));
    flag("functional_eval_max_batch", int64_t{f.eval_max_batch},
         "functional mode: positions the network evaluates at once (NVIDIA: --trt_batch=1024)", 1, 1 << 20);
    flag("functional_conv_width", int64_t{f.net.conv_width},
         "functional mode: filters of the trunk (v0.6: 32; smaller only for tests)", 1, 256);
    flag("functional_trunk_layers", int64_t{f.net.trunk_layers},
         "functional mode: residual blocks (v0.6: 9; smaller only for tests)", 1, 40);
    flag("functional_fc_width", int64_t{f.net.fc_width},
         "functional mode: width of the value head's hidden layer (v0.6: 64; smaller only for tests)", 1, 1024);
    AddUnlogged(s, Spec("functional_cache_dir", std::string(""),
                        "functional mode: folder of the cached checkpoint and target, by recipe and seed "
                        "(empty: <temp>/podbench-data/minigo)"));
    return s;
  }

  Result<std::map<std::string, HpValue>> Preset(std::string_view preset, const SliceInfo& slice) const override {
    (void)slice;
    if (preset == "functional") return FunctionalValues(FunctionalPreset(1));
    if (preset != "nvidia-v0.6") {
      return Status::NotFound("minigo has no preset '" + std::string(preset) + "' (known: nvidia-v0.6, functional)");
    }
    // NVIDIA's v0.6 flags (ml_perf/flags/9: rl_loop, selfplay, train;
    // loop §2-§3), on any slice.
    return std::map<std::string, HpValue>{
        {"global_batch_size", kMiniGoTrainBatch},
        {"virtual_losses", kMiniGoVirtualLosses},
        {"opt_learning_rate_decay_boundary_steps", std::string("12500,18750")},
        {"learning_rates", std::string("0.32,0.032,0.0032")},
        {"games_per_generation", kMiniGoGamesPerGeneration},
        {"num_readouts", kMiniGoReadoutsPerMove},
        {"parallel_games", kMiniGoParallelGames},
        {"window_generations", kMiniGoWindowGenerations},
        {"filter_amount", kMiniGoFilterAmount},
        {"gating_games", kMiniGoGatingGames},
        {"gating_win_rate", kMiniGoGatingWinRate},
        {"max_generations", kMiniGoIterations},
    };
  }

  Status Validate(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    PODBENCH_ASSIGN_OR_RETURN(const std::vector<double> lrs, LearningRates(hp));
    PODBENCH_ASSIGN_OR_RETURN(const std::vector<int64_t> bounds,
                              ParseIntList("opt_learning_rate_decay_boundary_steps",
                                           hp.String("opt_learning_rate_decay_boundary_steps")));
    if (lrs.size() != bounds.size() + 1) {
      return Status::InvalidArgument("learning_rates has " + std::to_string(lrs.size()) +
                                     " rates; opt_learning_rate_decay_boundary_steps' " +
                                     std::to_string(bounds.size()) + " boundaries need " +
                                     std::to_string(bounds.size() + 1));
    }
    if (hp.Int("num_readouts") < hp.Int("virtual_losses")) {
      return Status::InvalidArgument("num_readouts " + std::to_string(hp.Int("num_readouts")) +
                                     " is below virtual_losses " + std::to_string(hp.Int("virtual_losses")) +
                                     ": a search round adds virtual_losses leaves of one move");
    }
    if (mode == Mode::kFunctional) return ValidateFunctional(hp, slice);
    // Projected mode: the winning generations are NVIDIA's and Intel's at
    // the v0.6 flags; a run at other values would log them without changing
    // what is projected.
    const Hyperparameters v06(*Preset("nvidia-v0.6", slice));
    for (const char* key : {"global_batch_size", "virtual_losses", "opt_learning_rate_decay_boundary_steps",
                            "learning_rates", "games_per_generation", "num_readouts", "window_generations",
                            "filter_amount", "gating_games", "gating_win_rate"}) {
      if (hp.values().at(key) != v06.values().at(key)) {
        return Status::InvalidArgument(
            std::string(key) + " " + HpToString(hp.values().at(key)) +
            ": projected mode takes the winning generation from NVIDIA's and Intel's v0.6 MiniGo runs, which used " +
            key + "=" + HpToString(v06.values().at(key)) + "; there is no convergence to project at another value");
      }
    }
    // The training sub-slice fits the slice and splits the batch.
    PODBENCH_RETURN_IF_ERROR(minigo::ProjectedStep(hp, slice).status());
    return Status::Ok();
  }

  Result<WorkloadDescription> Describe(const Hyperparameters& hp, const SliceInfo& slice, Mode mode) const override {
    WorkloadDescription d;
    d.benchmark = "minigo";
    d.global_batch = hp.Int("global_batch_size");
    // Every core is a replica of its own: the training sub-slice's cores
    // train data-parallel (ProjectedStep), every other core plays its own
    // self-play games.
    d.parallelism.replicas = slice.cores;
    d.parallelism.gradient_dtype = projection::DType::kF32;
    d.targets = {{"win_rate", kMiniGoTargetWinRate, true}};
    d.cadence.every = 1;
    d.cadence.first = 1;
    d.cadence.max_epochs = hp.Int("max_generations");
    d.cadence.beside_training = true;  // loop §3: the target evaluation is not on the timed path
    d.run_end = RunEnd::kWinningModel;
    if (mode == Mode::kFunctional) {
      // The network as this run builds it (functional_conv_width etc.).
      const LoopConfig c = LoopConfigOf(hp, 0);
      PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<Network> net, Network::Create(c.net, 0));
      d.data = {"minigo_selfplay_9x9", static_cast<int64_t>(c.steps_per_generation) * d.global_batch,
                c.target_games};
      d.model = {"minigo_9x9", net->num_parameters(), 6.0 * static_cast<double>(net->MacsPerPosition())};
      d.host_memory_bytes = FunctionalHostBytes(c);
    } else {
      PODBENCH_ASSIGN_OR_RETURN(projection::ModelGraph g, BuildMiniGoGraph());
      d.data = {"minigo_selfplay_9x9", StepsPerGeneration(hp) * d.global_batch, kMiniGoTargetGames};
      d.model = {"minigo_9x9", g.TotalParams(), 6.0 * static_cast<double>(g.ForwardMacs())};
    }
    // loop §3: lists a HyperparameterSpec cannot hold, as the v0.6 logs write them.
    PODBENCH_ASSIGN_OR_RETURN(const std::vector<double> lrs, LearningRates(hp));
    d.init_events.push_back(WorkloadEvent("opt_base_learning_rate", lrs));
    return d;
  }

  Result<projection::StepSpec> ProjectedStep(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return minigo::ProjectedStep(hp, slice);
  }
  Result<projection::RunPlan> ProjectedPlan(const Hyperparameters& hp, const SliceInfo& slice) const override {
    return minigo::ProjectedPlan(hp, slice);
  }

  Result<std::unique_ptr<Session>> Start(const RunContext& ctx) const override {
    if (ctx.mode == Mode::kFunctional) {
      std::filesystem::path cache = ctx.hp.String("functional_cache_dir");
      if (cache.empty()) cache = std::filesystem::temp_directory_path() / "podbench-data" / "minigo";
      PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<LoopSession> loop,
                                LoopSession::Create(LoopConfigOf(ctx.hp, ctx.seed), static_cast<int>(ctx.slice.cores),
                                                    ctx.ranks, cache));
      return std::unique_ptr<Session>(new FunctionalSession(std::move(loop), ctx.on_step));
    }
    PODBENCH_ASSIGN_OR_RETURN(projection::StepSpec step, ProjectedStep(ctx.hp, ctx.slice));
    PODBENCH_ASSIGN_OR_RETURN(projection::RunPlan plan, ProjectedPlan(ctx.hp, ctx.slice));
    return StartProjectedSession(ctx, std::move(step), std::move(plan), MiniGoLogLines());
  }
};

// What the v0.6 MiniGo facts say about the loop on a pod that podbench
// tests by what-ifs of the priced run (workloads/claims.h). Neither changes
// the convergence (the winning generations stay NVIDIA's and Intel's), only
// what a generation costs. No paper gives a number.
std::vector<ClaimSpec> Claims() {
  auto run = [](std::string slice, std::vector<std::string> sets, std::string label) {
    return ClaimRun{std::move(slice), "projected", "nvidia-v0.6", std::move(sets), 10, std::move(label)};
  };
  return {
      {.id = "minigo-selfplay-across-cores",
       .paper = "MLPerf v0.6 MiniGo reference (../shared/reference/minigo-v0.6.md)",
       .section = "What this means for podbench: projected",
       .words = "self-play dominates a generation; on a TPU pod it would be spread over cores as independent games",
       .base = run("tpu-v3-32", {}, "self-play on 24 cores (2 waves of 128 games a core)"),
       .variant = run("tpu-v3-256", {}, "self-play on 248 cores (17 games a core, 1 wave)"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kPositive,
       .threshold = 1.0,
       .unit = "x",
       .note = "the time to train on tpu-v3-32 over tpu-v3-256: above 1 means spreading the 4096 games over more "
               "cores pays. It pays until self-play drops below the training path (222 steps and 100 gating "
               "games on the tpu-v3-8 that trains), which then sets the generation: past ~64 cores the games "
               "are latency-bound rounds of small batches (2663 a game) and more cores save nothing"},
      {.id = "minigo-host-tree-search",
       .paper = "MLPerf v0.6 MiniGo loop (../shared/reference/minigo-v0.6-loop.md)",
       .section = "§2: 128 parallel games a process, 8 virtual losses, two processes per GPU",
       .words = "the tree search runs on the host beside the batched leaf evaluations on the accelerator",
       .base = run("tpu-v3-32", {"projected_search_threads_per_core=1"}, "one search thread a core"),
       .variant = run("tpu-v3-32", {}, "12 search threads a core (a host's 96 vcpus)"),
       .measure = ClaimMeasure::kScoreRatio,
       .comparison = ClaimComparison::kPositive,
       .threshold = 1.0,
       .unit = "x",
       .note = "the time to train with one host thread searching each core's 128 games over twelve: above 1 "
               "means the host's tree search, not the device, bounds self-play at one thread (1024 leaves a "
               "round at host.scoring_ops_per_s and a MODELLED 3,600 operations a leaf)"},
  };
}

}  // namespace

PODBENCH_REGISTER_MODEL("minigo")
    ->Plugin<MiniGoWorkload>()
    ->Summary("MLPerf v0.6 MiniGo, 9x9 Go by reinforcement learning; target: win 50% of 100 games against the "
              "target model")
    ->Modes({Mode::kProjected, Mode::kFunctional})
    ->Presets({"nvidia-v0.6", "functional"})
    ->ScoredRuns(10)
    ->Zoo("MiniGo 9x9, 17 input planes, 9 residual blocks of 32, policy and value heads",
          "no published parameter or FLOP count exists for the v0.6 9x9 network: derived by hand from "
          "dual_net.py and ml_perf/flags/9/architecture.flags")
    ->Claims(Claims());

}  // namespace podbench::workloads
