#include "workloads/projection/games.h"

#include <algorithm>
#include <cmath>

namespace podbench::projection {

namespace {
int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
}  // namespace

Result<GamesPricing> PriceGames(const ModelGraph& graph, const GameWork& work, const topology::Slice& slice,
                                const ProjectionOptions& options) {
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument((work.what.empty() ? std::string("games") : work.what) + ": " + what);
  };
  const struct {
    const char* name;
    int64_t v;
  } counts[] = {{"games", work.games},
                {"readouts_per_move", work.readouts_per_move},
                {"virtual_losses", work.virtual_losses},
                {"parallel_games_per_core", work.parallel_games_per_core},
                {"cores", work.cores},
                {"search_threads_per_core", work.search_threads_per_core}};
  for (const auto& c : counts) {
    if (c.v < 1) return bad(std::string(c.name) + " must be >= 1, not " + std::to_string(c.v));
  }
  if (!(work.moves_per_game >= 1)) return bad("moves_per_game must be >= 1");
  if (!(work.host_ops_per_readout >= 0)) return bad("host_ops_per_readout must be >= 0");
  if (work.cores > slice.num_cores()) {
    return bad(std::to_string(work.cores) + " cores, but " + slice.name() + " has " +
               std::to_string(slice.num_cores()));
  }
  if (work.readouts_per_move < work.virtual_losses) {
    return bad("readouts_per_move " + std::to_string(work.readouts_per_move) + " is below virtual_losses " +
               std::to_string(work.virtual_losses));
  }
  const topology::SystemSpec& sys = slice.system();
  const int64_t cores_per_host = int64_t{sys.host.chips_per_host} * sys.chip.cores;
  if (work.search_threads_per_core * cores_per_host > sys.host.vcpus) {
    return bad(std::to_string(work.search_threads_per_core) + " search threads per core on " +
               std::to_string(cores_per_host) + " cores a host need more than its " + std::to_string(sys.host.vcpus) +
               " vcpus (host.vcpus)");
  }
  if (!(sys.host.scoring_ops_per_s > 0)) return bad("the system file's host.scoring_ops_per_s must be > 0");

  GamesPricing p;
  p.work = work;
  p.games_per_core = CeilDiv(work.games, work.cores);
  p.parallel_games = std::min(work.parallel_games_per_core, p.games_per_core);
  p.batch_per_core = p.parallel_games * work.virtual_losses;
  p.waves = CeilDiv(p.games_per_core, p.parallel_games);
  const double leaves_per_game = work.moves_per_game * static_cast<double>(work.readouts_per_move);
  p.rounds = p.waves * static_cast<int64_t>(std::ceil(leaves_per_game / static_cast<double>(work.virtual_losses)));

  StepConfig c;
  c.layout.replicas = slice.num_cores();
  c.per_replica_batch = p.batch_per_core;
  c.eval_per_replica_batch = p.batch_per_core;
  PODBENCH_ASSIGN_OR_RETURN(p.inference, ProjectEvalStep(graph, c, slice, options));
  p.device_round_s = p.inference.step_s();
  // The busiest thread searches its share of the wave's games, each adding
  // virtual_losses leaves.
  const int64_t games_per_thread = CeilDiv(p.parallel_games, work.search_threads_per_core);
  p.host_round_s = static_cast<double>(games_per_thread * work.virtual_losses) * work.host_ops_per_readout /
                   sys.host.scoring_ops_per_s;
  p.round_s = std::max(p.device_round_s, p.host_round_s);
  const double rounds = static_cast<double>(p.rounds);
  p.device_s = rounds * p.device_round_s;
  p.host_s = rounds * p.host_round_s;
  p.total_s = rounds * p.round_s;
  return p;
}

double GenerationPricing::PeriodS(double train_steps_s) const {
  const double train = TrainPathS(train_steps_s);
  return shared ? train + self_play.total_s : std::max(train, self_play.total_s);
}

std::string GenerationPricing::PeriodSetBy(double train_steps_s) const {
  if (shared) return "training + gating + self-play, in turn on the same cores";
  return TrainPathS(train_steps_s) >= self_play.total_s ? "training + gating" : "self-play";
}

Result<GenerationPricing> PriceGeneration(const ModelGraph& graph, GenerationPlan plan, int64_t train_cores,
                                          const topology::Slice& slice, const ProjectionOptions& options) {
  if (train_cores < 1 || train_cores > slice.num_cores()) {
    return Status::InvalidArgument("generation: the training cores (" + std::to_string(train_cores) +
                                   ") must be 1 .. the " + std::to_string(slice.num_cores()) + " of " +
                                   slice.name());
  }
  GenerationPricing g;
  g.train_cores = train_cores;
  g.shared = train_cores == slice.num_cores();
  g.play_cores = g.shared ? slice.num_cores() : slice.num_cores() - train_cores;
  plan.self_play.cores = g.play_cores;
  plan.gating.cores = train_cores;
  PODBENCH_ASSIGN_OR_RETURN(g.self_play, PriceGames(graph, plan.self_play, slice, options));
  PODBENCH_ASSIGN_OR_RETURN(g.gating, PriceGames(graph, plan.gating, slice, options));
  PODBENCH_ASSIGN_OR_RETURN(g.evaluation, PriceGames(graph, plan.evaluation, slice, options));
  return g;
}

}  // namespace podbench::projection
