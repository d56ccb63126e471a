// Tree-search throughput with the fake evaluator (no network cost), so the
// numbers are the host-side search alone: readouts/s of MCTS with MiniGo's
// v0.6 settings, and moves/s of the Go engine.
// Run: build/release/workloads/minigo/minigo_mcts_bench
#include <benchmark/benchmark.h>

#include <array>
#include <memory>
#include <vector>

#include "workloads/minigo/go/board.h"
#include "workloads/minigo/go/fake_evaluator.h"
#include "workloads/minigo/go/mcts.h"
#include "workloads/minigo/go/random.h"

namespace podbench::minigo {
namespace {

// One 240-readout search from the empty board, for state.range(0) games
// whose leaves go to the evaluator together (8 virtual losses each).
void BM_SearchOneMove(benchmark::State& state) {
  const int games = static_cast<int>(state.range(0));
  MctsOptions opt;
  FakeEvaluator::Options fo;
  fo.material_scale = 0.1f;
  FakeEvaluator eval(fo);
  int64_t readouts = 0;
  for (auto _ : state) {
    std::vector<std::unique_ptr<MctsPlayer>> players;
    std::vector<MctsPlayer*> ptrs;
    for (int g = 0; g < games; ++g) {
      players.push_back(std::make_unique<MctsPlayer>(opt, static_cast<uint64_t>(g), true));
      players.back()->StartSearch();
      ptrs.push_back(players.back().get());
    }
    Status st = RunSearches(ptrs, eval);
    if (!st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
    for (MctsPlayer* p : ptrs) readouts += static_cast<int64_t>(p->root().N());
  }
  state.counters["readouts/s"] = benchmark::Counter(static_cast<double>(readouts), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SearchOneMove)->Arg(1)->Arg(16)->Unit(benchmark::kMillisecond);

// Whole self-play games at v0.6 settings (240 readouts, 8 virtual losses),
// 16 in parallel.
void BM_SelfPlayGames(benchmark::State& state) {
  MctsOptions opt;
  FakeEvaluator::Options fo;
  fo.material_scale = 0.1f;
  FakeEvaluator eval(fo);
  SearchStats stats;
  int64_t moves = 0;
  uint64_t seed = 1;
  for (auto _ : state) {
    auto games = PlaySelfPlayGames(opt, 16, 16, seed++, eval, &stats);
    if (!games.ok()) {
      state.SkipWithError(games.status().ToString().c_str());
      return;
    }
    for (const auto& g : *games) moves += static_cast<int64_t>(g.moves.size());
  }
  state.counters["moves/s"] = benchmark::Counter(static_cast<double>(moves), benchmark::Counter::kIsRate);
  state.counters["leaves/s"] =
      benchmark::Counter(static_cast<double>(stats.positions_evaluated), benchmark::Counter::kIsRate);
  state.counters["batch"] = static_cast<double>(stats.positions_evaluated) / static_cast<double>(stats.evaluator_calls);
}
BENCHMARK(BM_SelfPlayGames)->Unit(benchmark::kMillisecond)->Iterations(2);

// Random legal moves on the engine: moves/s of IsLegal + PlayLegal.
void BM_RandomPlayouts(benchmark::State& state) {
  Rng rng(7);
  int64_t moves = 0;
  for (auto _ : state) {
    Position pos;
    while (!pos.IsTerminal()) {
      std::array<int8_t, kNumPoints> legal;
      const int n = pos.LegalPoints(&legal);
      pos.PlayLegal(n == 0 ? kPass : legal[rng.UniformInt(n)]);
      ++moves;
    }
    benchmark::DoNotOptimize(pos.Score());
  }
  state.counters["moves/s"] = benchmark::Counter(static_cast<double>(moves), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomPlayouts);

}  // namespace
}  // namespace podbench::minigo

BENCHMARK_MAIN();
