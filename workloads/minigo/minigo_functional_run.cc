// minigo_functional_run [SEED [CACHE_DIR [GENERATIONS [CORES [all]]]]]
//                       [FIELD=VALUE ...]: one
// functional MiniGo run with the `functional` preset on CORES emulated cores
// (default 8, tpu-v3-8's, as `podbench run minigo --mode functional` on
// that slice plays it), for sizing the preset by hand. Prints the host wall
// and CPU seconds of each part (set-up, generations, target evaluations),
// each generation's gating and each target evaluation's win rate, and the
// score (the winning model's save on the emulated clock). Target evaluation
// follows the v0.6 rule (training order, to the first winner); with `all`
// it also plays the checkpoint (model 0) and every model after the winner,
// for a win rate by generation. FIELD=VALUE pairs override the preset's
// loop sizes (games, readouts, virtual_losses, steps, window, batch, lr
// (one rate for every step), boot_games, boot_readouts, ckpt_steps,
// target_gens, target_games, gating_games, recipe_seed, resign_threshold,
// disable_resign_pct, pass_target: 1 keeps pass in the policy targets as
// v0.6 does, 0 removes it as the preset does).
#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topology/rank_group.h"
#include "workloads/minigo/minigo_functional_preset.h"
#include "workloads/minigo/minigo_session.h"
#include "workloads/minigo/tool_fields.h"

namespace {

double CpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace podbench::minigo;
  std::vector<std::string> pos, sets;
  for (int i = 1; i < argc; ++i) (std::string(argv[i]).find('=') == std::string::npos ? pos : sets).push_back(argv[i]);
  const uint64_t seed = pos.size() > 0 ? std::strtoull(pos[0].c_str(), nullptr, 10) : 1;
  const std::string cache = pos.size() > 1 ? pos[1] : "";
  LoopConfig c = FunctionalPreset(seed);
  if (pos.size() > 2) c.generations = std::atoi(pos[2].c_str());
  const int cores = pos.size() > 3 ? std::atoi(pos[3].c_str()) : 8;
  const bool all = pos.size() > 4 && pos[4] == "all";
  // The fields at the preset's values; lr unset (NaN) keeps its schedule.
  std::map<std::string, double> f = {
      {"games", c.games_per_generation},
      {"readouts", c.search.num_readouts},
      {"virtual_losses", c.search.virtual_losses},
      {"steps", c.steps_per_generation},
      {"window", c.window_generations},
      {"batch", c.train.batch},
      {"lr", std::nan("")},
      {"boot_games", c.bootstrap_games},
      {"boot_readouts", c.bootstrap_readouts},
      {"ckpt_steps", c.checkpoint_steps},
      {"target_gens", c.target_generations},
      {"target_games", c.target_games},
      {"gating_games", c.gating_games},
      {"recipe_seed", static_cast<double>(c.recipe_seed)},
      {"resign_threshold", c.search.resign_threshold},
      {"disable_resign_pct", c.search.disable_resign_pct},
      {"pass_target", c.pass_in_policy_target ? 1 : 0},
  };
  if (const podbench::Status st = ParseToolFields("minigo_functional_run", sets, &f); !st.ok()) {
    std::fprintf(stderr, "%s\n", st.message().c_str());
    return 2;
  }
  auto n = [&](const char* k) { return static_cast<int>(f.at(k)); };
  c.games_per_generation = n("games");
  c.search.num_readouts = n("readouts");
  c.search.virtual_losses = n("virtual_losses");
  c.steps_per_generation = n("steps");
  c.window_generations = n("window");
  c.train.batch = n("batch");
  if (!std::isnan(f.at("lr"))) c.train.learning_rates.assign(c.train.learning_rates.size(), static_cast<float>(f.at("lr")));
  c.bootstrap_games = n("boot_games");
  c.bootstrap_readouts = n("boot_readouts");
  c.checkpoint_steps = n("ckpt_steps");
  c.target_generations = n("target_gens");
  c.target_games = n("target_games");
  c.gating_games = n("gating_games");
  c.recipe_seed = static_cast<uint64_t>(f.at("recipe_seed"));
  c.search.resign_threshold = static_cast<float>(f.at("resign_threshold"));
  c.search.disable_resign_pct = static_cast<float>(f.at("disable_resign_pct"));
  c.pass_in_policy_target = f.at("pass_target") != 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  double last_cpu = CpuSeconds();
  c.progress = [&](const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    const double cpu = CpuSeconds();
    std::printf("%-16s wall %7.1f s  cpu %7.1f s  (total wall %7.1f s, cpu %7.1f s)\n", what.c_str(),
                std::chrono::duration<double>(now - last).count(), cpu - last_cpu,
                std::chrono::duration<double>(now - t0).count(), cpu);
    std::fflush(stdout);
    last = now;
    last_cpu = cpu;
  };
  auto fail = [](const podbench::Status& st) {
    std::fprintf(stderr, "minigo_functional_run: %s\n", st.ToString().c_str());
    return 1;
  };
  auto session = LoopSession::Create(c, cores, podbench::topology::OneProcess(), cache);
  if (!session.ok()) return fail(session.status());
  auto setup = (*session)->Initialize();
  if (!setup.ok()) return fail(setup.status());
  std::printf("checkpoint cached: %d, target cached: %d\n", setup->checkpoint_cached, setup->target_cached);
  std::vector<GenerationEvent> gens;
  for (int g = 1; g <= c.generations; ++g) {
    auto ev = (*session)->Generation(g);
    if (!ev.ok()) return fail(ev.status());
    std::printf("generation %d: save %.1f s, end %.1f s, positions %lld, loss %.3f, gating %.2f%s\n", ev->iteration,
                ev->save_seconds, ev->end_seconds, static_cast<long long>(ev->selfplay_positions), ev->train_loss,
                ev->gating_win_rate, ev->promoted ? " (promoted)" : "");
    gens.push_back(*ev);
  }
  std::optional<int> winner;
  for (int g = all ? 0 : 1; g <= c.generations; ++g) {
    auto t = (*session)->EvaluateTarget(g);
    if (!t.ok()) return fail(t.status());
    std::printf("target eval %d: win rate %.2f\n", t->iteration, t->win_rate);
    std::fflush(stdout);
    if (g >= 1 && !winner && t->win_rate >= c.target_win_rate) {
      winner = g;
      if (!all) break;
    }
  }
  if (winner) {
    std::printf("winner: model %d, saved at %.3f s (emulated)\n", *winner,
                gens[static_cast<size_t>(*winner - 1)].save_seconds);
  } else {
    std::printf("no model reached the target\n");
  }
  return 0;
}
