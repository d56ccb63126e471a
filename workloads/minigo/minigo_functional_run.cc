// minigo_functional_run [SEED [CACHE_DIR [GENERATIONS]]]: one functional
// MiniGo run with the `functional` preset, for sizing the preset by hand.
// Prints the host time of each part (set-up, generations, target
// evaluations), each generation's gating and each target evaluation's win
// rate, and the score (the winning model's save on the emulated clock).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "workloads/minigo/minigo_functional_preset.h"

int main(int argc, char** argv) {
  using namespace podbench::minigo;
  const uint64_t seed = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1;
  const std::string cache = argc > 2 ? argv[2] : "";
  LoopConfig c = FunctionalPreset(seed);
  if (argc > 3) c.generations = std::atoi(argv[3]);
  const auto t0 = std::chrono::steady_clock::now();
  auto last = t0;
  c.progress = [&](const std::string& what) {
    const auto now = std::chrono::steady_clock::now();
    std::printf("%-16s %8.1f s (total %8.1f s)\n", what.c_str(), std::chrono::duration<double>(now - last).count(),
                std::chrono::duration<double>(now - t0).count());
    std::fflush(stdout);
    last = now;
  };
  auto r = RunLoop(c, cache);
  if (!r.ok()) {
    std::fprintf(stderr, "minigo_functional_run: %s\n", r.status().ToString().c_str());
    return 1;
  }
  std::printf("checkpoint cached: %d, target cached: %d\n", r->checkpoint_cached, r->target_cached);
  for (const GenerationEvent& g : r->generations) {
    std::printf("generation %d: save %.1f s, end %.1f s, positions %lld, loss %.3f, gating %.2f%s\n", g.iteration,
                g.save_seconds, g.end_seconds, static_cast<long long>(g.selfplay_positions), g.train_loss,
                g.gating_win_rate, g.promoted ? " (promoted)" : "");
  }
  for (const TargetEvalEvent& t : r->target_evals) std::printf("target eval %d: win rate %.2f\n", t.iteration, t.win_rate);
  if (r->winning_iteration) {
    std::printf("winner: model %d, saved at %.3f s (emulated)\n", *r->winning_iteration, r->winning_save_seconds);
  } else {
    std::printf("no model reached the target\n");
  }
  return 0;
}
