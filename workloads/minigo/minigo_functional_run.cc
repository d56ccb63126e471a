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
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "topology/rank_group.h"
#include "workloads/minigo/minigo_functional_preset.h"
#include "workloads/minigo/minigo_session.h"

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
  for (const std::string& kv : sets) {
    const std::string k = kv.substr(0, kv.find('=')), v = kv.substr(kv.find('=') + 1);
    const double x = std::atof(v.c_str());
    const int n = static_cast<int>(x);
    if (k == "games") c.games_per_generation = n;
    else if (k == "readouts") c.search.num_readouts = n;
    else if (k == "virtual_losses") c.search.virtual_losses = n;
    else if (k == "steps") c.steps_per_generation = n;
    else if (k == "window") c.window_generations = n;
    else if (k == "batch") c.train.batch = n;
    else if (k == "lr") c.train.learning_rates.assign(c.train.learning_rates.size(), static_cast<float>(x));
    else if (k == "boot_games") c.bootstrap_games = n;
    else if (k == "boot_readouts") c.bootstrap_readouts = n;
    else if (k == "ckpt_steps") c.checkpoint_steps = n;
    else if (k == "target_gens") c.target_generations = n;
    else if (k == "target_games") c.target_games = n;
    else if (k == "gating_games") c.gating_games = n;
    else if (k == "recipe_seed") c.recipe_seed = static_cast<uint64_t>(x);
    else if (k == "resign_threshold") c.search.resign_threshold = static_cast<float>(x);
    else if (k == "pass_target") c.pass_in_policy_target = n != 0;
    else if (k == "disable_resign_pct") c.search.disable_resign_pct = static_cast<float>(x);
    else {
      std::fprintf(stderr, "minigo_functional_run: unknown field '%s' in '%s'\n", k.c_str(), kv.c_str());
      return 2;
    }
  }
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
