// podbench model: a full-size model of the registry's zoo
// (workloads/registry.h) priced on a slice by the projection layer
// (workloads/projection/projection.h): one row per op, then the training and
// evaluation steps by category. The step is the one a projected run of the
// same preset prices (ModelRegistration::ZooStep). Without a name it lists
// the zoo.
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/text.h"
#include "harness/cli/command.h"
#include "topology/slice.h"
#include "topology/system.h"
#include "workloads/projected_runs.h"
#include "workloads/registry.h"
#include "workloads/projection/overrides.h"
#include "workloads/projection/projected_run.h"
#include "workloads/projection/projection.h"

namespace podbench::cli {
namespace {

using projection::Category;

struct ModelOptions {
  std::string name;  // empty: list the zoo
  std::string slice = "tpu-v3-32";
  std::string preset;  // empty: the model's first preset
  std::vector<std::string> set;
  std::string system;  // empty: built-in
  OutputFormat format = OutputFormat::kText;
};

std::string Us(double s) { return fmt::format("{:.1f}", s * 1e6); }

// Where an op runs on its replica: "split" over the cores, or "coreN".
std::string Place(const projection::OpRow& r) {
  return r.placement == projection::Placement::kSplit ? "split" : "core" + std::to_string(r.pinned_core);
}

nlohmann::json StepJson(const projection::StepProjection& s, bool train) {
  nlohmann::json j;
  j["step_s"] = s.step_s();
  j["global_examples"] = s.global_examples;
  j["examples_per_s"] = s.examples_per_s();
  if (train) j["host_input_s"] = s.host_input_s;
  for (Category c : projection::AllCategories()) j["categories"][projection::CategoryName(c)] = s.time[c];
  j["ops"] = nlohmann::json::array();
  for (const projection::OpRow& r : s.ops) {
    nlohmann::json o = {{"name", r.name},
                        {"kind", projection::OpKindName(r.kind)},
                        {"shape", r.shape},
                        {"placement", Place(r)},
                        {"fused", r.fused},
                        {"params", r.params},
                        {"flops", r.flops},
                        {"forward_s", r.forward_s},
                        {"halo_s", r.halo_s},
                        {"bound", r.bound},
                        {"mxu_utilisation", r.mxu_utilisation}};
    if (train) o["backward_s"] = r.backward_s;
    j["ops"].push_back(std::move(o));
  }
  return j;
}

void WriteOps(std::ostream& o, const projection::StepProjection& s, bool train) {
  o << fmt::format("{:<30} {:<14} {:<34} {:>10} {:>9} {:>9} {:>9} {:>8} {:>6} {:>5}\n", "op", "kind", "shape",
                   "params", "GFLOP", "fwd_us", train ? "bwd_us" : "", "halo_us", "bound", "place");
  for (const projection::OpRow& r : s.ops) {
    o << fmt::format("{:<30} {:<14} {:<34} {:>10} {:>9.3f} {:>9} {:>9} {:>8} {:>6} {:>5}\n", r.name,
                     std::string(projection::OpKindName(r.kind)) + (r.fused ? "*" : ""), r.shape, r.params,
                     r.flops / 1e9, Us(r.forward_s), train ? Us(r.backward_s) : "", Us(r.halo_s), r.bound,
                     Place(r));
  }
}

void WriteSummary(std::ostream& o, const char* what, const projection::StepProjection& s) {
  o << fmt::format("{}: {:.3f} ms, {} examples, {:.4g} examples/s\n", what, s.step_s() * 1e3, s.global_examples,
                   s.examples_per_s());
  for (Category c : projection::AllCategories()) {
    const double v = s.time[c];
    o << fmt::format("  {:<10} {:>10.3f} ms {:>6.1f}%\n", projection::CategoryName(c), v * 1e3,
                     s.step_s() > 0 ? 100 * v / s.step_s() : 0.0);
  }
}

// A loop of generations (MiniGo; workloads/projection/games.h): the games and
// the training of one generation, what sets its period and where its time
// goes.
nlohmann::json GamesJson(const projection::GamesPricing& g) {
  return {{"games", g.work.games},           {"cores", g.work.cores},
          {"games_per_core", g.games_per_core}, {"parallel_games", g.parallel_games},
          {"batch_per_core", g.batch_per_core}, {"waves", g.waves},
          {"rounds", g.rounds},                 {"device_round_s", g.device_round_s},
          {"host_round_s", g.host_round_s},     {"device_s", g.device_s},
          {"host_s", g.host_s},                 {"total_s", g.total_s},
          {"bound", g.host_bound() ? "host" : "device"}};
}

nlohmann::json GenerationJson(const projection::GenerationPricing& g, int64_t steps, double step_s) {
  const double train_s = static_cast<double>(steps) * step_s;
  return {{"train_cores", g.train_cores},
          {"play_cores", g.play_cores},
          {"shared_cores", g.shared},
          {"train_steps", steps},
          {"train_steps_s", train_s},
          {"gating", GamesJson(g.gating)},
          {"self_play", GamesJson(g.self_play)},
          {"target_evaluation", GamesJson(g.evaluation)},
          {"train_path_s", g.TrainPathS(train_s)},
          {"period_s", g.PeriodS(train_s)},
          {"period_set_by", g.PeriodSetBy(train_s)}};
}

void WriteGames(std::ostream& o, const char* what, const projection::GamesPricing& g) {
  o << fmt::format(
      "  {:<18} {} games on {}: {} a core, {} at once ({} wave{}), batch {} a core; {} rounds x {:.3f} ms "
      "(device {:.3f}, host search {:.3f}: {}-bound) = {:.2f} s\n",
      what, g.work.games, Plural(g.work.cores, "core"), g.games_per_core, g.parallel_games, g.waves,
      g.waves == 1 ? "" : "s", g.batch_per_core, g.rounds, g.round_s * 1e3, g.device_round_s * 1e3,
      g.host_round_s * 1e3, g.host_bound() ? "host" : "device", g.total_s);
}

void WriteGeneration(std::ostream& o, const projection::GenerationPricing& g, int64_t steps, double step_s,
                     const std::string& train_slice) {
  const double train_s = static_cast<double>(steps) * step_s;
  const double period = g.PeriodS(train_s);
  o << fmt::format("\ngeneration (one label of a projected run): {:.2f} s, set by {}\n", period,
                   g.PeriodSetBy(train_s));
  o << fmt::format("  {:<18} {} steps x {:.3f} ms on {} = {:.2f} s\n", "training", steps, step_s * 1e3, train_slice,
                   train_s);
  WriteGames(o, "gating", g.gating);
  WriteGames(o, "self-play", g.self_play);
  WriteGames(o, "target evaluation", g.evaluation);
  o << fmt::format(
      "  where the time goes: training path {:.2f} s (steps {:.0f}%, gating {:.0f}%){} self-play {:.2f} s "
      "(device {:.2f} s, host search {:.2f} s); the target evaluation runs beside training, off the timed path\n",
      g.TrainPathS(train_s), 100 * train_s / g.TrainPathS(train_s), 100 * g.gating.total_s / g.TrainPathS(train_s),
      g.shared ? ", then, on the same cores," : " beside", g.self_play.total_s, g.self_play.device_s,
      g.self_play.host_s);
  o << fmt::format("  self-play : training-step time = {:.1f} : 1\n", g.self_play.total_s / train_s);
}

int ListModels(const ModelOptions& opt, CliContext& ctx) {
  const auto models = workloads::ZooModels();
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto* m : models) {
      j.push_back({{"name", m->name()},
                   {"summary", m->zoo_description()},
                   {"presets", m->presets()},
                   {"source", m->zoo_source()},
                   {"workload", m->has_workload()}});
    }
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << "models (podbench model NAME --slice S --preset P):\n";
  for (const auto* m : models) {
    ctx.out << fmt::format("  {:<12} {}  [presets: {}]\n", m->name(), m->zoo_description(),
                           JoinNames(m->presets()));
  }
  return kExitOk;
}

int Run(const ModelOptions& opt, CliContext& ctx) {
  auto fail = [&](const std::string& msg) {
    ctx.err << "podbench model: " << msg << "\n";
    return kExitUsage;
  };
  if (opt.name.empty()) return ListModels(opt, ctx);
  const workloads::ModelRegistration* m = workloads::FindModel(opt.name);
  if (m == nullptr || !m->in_zoo()) {
    std::string known;
    for (const auto* e : workloads::ZooModels()) known += (known.empty() ? "" : ", ") + e->name();
    return fail("unknown model '" + opt.name + "' (known: " + known + ")");
  }
  auto loaded = topology::LoadSystemOrDefault(opt.system);
  if (!loaded.ok()) return fail(loaded.status().message());
  auto slice = topology::Slice::FromName(opt.slice, *loaded->spec);
  if (!slice.ok()) return fail("--slice " + opt.slice + ": " + slice.status().message());
  const std::string preset = opt.preset.empty() && !m->presets().empty() ? m->presets().front() : opt.preset;
  auto step = m->ZooStep(preset, {slice->name(), slice->num_cores(), slice->num_chips()});
  if (!step.ok()) return fail("--preset " + preset + ": " + step.status().message());
  // The slice the step runs on: the slice, or a sub-slice of it (MiniGo's
  // training cores).
  auto step_slice = projection::StepSliceOf(*step, *slice);
  if (!step_slice.ok()) return fail(step_slice.status().message());
  projection::StepConfig* config = &step->config;
  projection::ProjectionOptions& options = step->options;
  for (const std::string& item : opt.set) {
    Status st = projection::ApplyOverride(item, step_slice->num_cores(), config, &options);
    if (!st.ok()) return fail(st.message());
  }
  const projection::ModelGraph& graph = step->graph;
  auto train = projection::TrainMixStep(*step, *slice);  // a model's length buckets, if it has them
  if (!train.ok()) return fail(train.status().message());
  auto eval = projection::ProjectEvalStep(graph, *config, *step_slice, options);
  if (!eval.ok()) return fail(eval.status().message());
  // A run of generations: its games, priced as a projected run prices them.
  std::optional<workloads::ProjectedRunModel> run;
  if (m->has_workload() && m->Supports(workloads::Mode::kProjected)) {
    auto r = workloads::ModelProjectedRun(m->name(), preset, slice->name(), *loaded->spec, {}, opt.set);
    if (!r.ok()) return fail(r.status().message());
    if (r->pricing.generation) run = std::move(r).value();
  }
  int64_t gen_steps = 0;
  if (run) {
    auto steps = run->pricing.schedule.StepsThrough(1);
    if (!steps.ok()) return fail(steps.status().message());
    gen_steps = *steps;
  }

  const projection::ParallelLayout& l = config->layout;
  if (opt.format == OutputFormat::kJson) {
    nlohmann::json j;
    j["model"] = m->name();
    j["description"] = graph.description;
    j["example_unit"] = graph.example_unit;
    j["parameters"] = graph.TotalParams();
    j["trainable_parameters"] = graph.TrainableParams();
    j["forward_macs_per_example"] = graph.ForwardMacs();
    j["slice"] = slice->name();
    j["preset"] = preset;
    j["set"] = opt.set;
    j["system"] = loaded->source();
    j["modelled"] = true;  // emulated TPU-v3 times from the cost model, not measurements
    j["layout"] = {{"replicas", l.replicas},
                   {"cores_per_replica", l.cores_per_replica},
                   {"split", projection::SplitDimName(l.split)},
                   {"weight_update_sharding", l.weight_update_sharding},
                   {"bn_group", l.bn_group},
                   {"gradient_dtype", projection::DTypeName(l.gradient_dtype)},
                   {"allreduce", l.allreduce}};
    j["optimizer"] = projection::OptimizerName(config->optimizer);
    j["per_replica_batch"] = config->per_replica_batch;
    j["eval_per_replica_batch"] = config->eval_per_replica_batch;
    j["train"] = StepJson(*train, true);
    j["eval"] = StepJson(*eval, false);
    if (step_slice->name() != slice->name()) j["step_slice"] = step_slice->name();
    if (run) j["generation"] = GenerationJson(*run->pricing.generation, gen_steps, train->step_s());
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  std::ostream& o = ctx.out;
  o << fmt::format("{}: {} (example: {})\n", m->name(), graph.description, graph.example_unit);
  o << fmt::format("  {} parameters ({} trainable), {:.4g} GMAC forward per example\n", graph.TotalParams(),
                   graph.TrainableParams(), graph.ForwardMacs() / 1e9);
  o << fmt::format("slice {} ({} chips, {} cores), preset {}{}, system {}\n", slice->name(), slice->num_chips(),
                   slice->num_cores(), preset, opt.set.empty() ? "" : " with --set", loaded->source());
  if (step_slice->name() != slice->name()) {
    o << fmt::format("the steps below run on a {} of the slice ({} cores)\n", step_slice->name(),
                     step_slice->num_cores());
  }
  o << fmt::format(
      "layout: {} of {} (split {}), bn_group {}, weight-update sharding {}, {} gradients over {}; "
      "optimizer {}; {} a replica per step ({} global), {} per evaluation step\n",
      Plural(l.replicas, "replica"), Plural(l.cores_per_replica, "core"), projection::SplitDimName(l.split), l.bn_group,
      l.weight_update_sharding ? "on" : "off", projection::DTypeName(l.gradient_dtype), l.allreduce,
      projection::OptimizerName(config->optimizer), Plural(config->per_replica_batch, "example"), train->global_examples,
      config->eval_per_replica_batch);
  o << "(modelled: emulated TPU-v3 times from the cost model, not measurements; fwd/bwd are wall time on a "
       "replica, GFLOP the replica's step; * = fused)\n\n";
  o << "training step, per op\n";
  WriteOps(o, *train, true);
  o << "\n";
  WriteSummary(o, "training step", *train);
  o << fmt::format("  (host input work per step {:.3f} ms before overlap)\n\n", train->host_input_s * 1e3);
  WriteSummary(o, "evaluation step", *eval);
  if (run) WriteGeneration(o, *run->pricing.generation, gen_steps, train->step_s(), step_slice->name());
  return kExitOk;
}

}  // namespace

void AddModelCommand(Command app, CliContext& ctx) {
  auto opt = std::make_shared<ModelOptions>();
  Command sub = app.AddSubcommand(
      "model", "Price a full-size model on a slice: per op, and the training and evaluation steps by category");
  sub.Add("name", opt->name, "Model (resnet, ...); none: list the models");
  sub.Add("--slice", opt->slice, "Pod slice tpu-v3-N (default tpu-v3-32)");
  sub.Add("--preset", opt->preset, "Step configuration preset (default: the model's first, google-v0.6)");
  sub.Add("--set", opt->set,
          "Override a layout or pricing field: key=value (repeatable), e.g. cores_per_replica=4, "
          "weight_update_sharding=true, allreduce=ring, bn_group=8, gradient_dtype=bf16, "
          "per_replica_batch=32, optimizer=adam, overlap.gradients_with_backward=true");
  sub.Add("--system", opt->system, "System description YAML (default: the built-in, calibrated TPU-v3)");
  AddFormatOption(sub, &opt->format);
  sub.Callback([opt, &ctx] { ctx.exit_code = Run(*opt, ctx); });
}

}  // namespace podbench::cli
