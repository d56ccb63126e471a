#include "workloads/minigo/minigo_loop.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <system_error>
#include <utility>

#include "workloads/minigo/go/random.h"
#include "workloads/minigo/minigo_session.h"

namespace podbench::minigo {

uint64_t DeriveSeed(uint64_t seed, uint64_t a, uint64_t b) {
  Rng r(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xD1B54A32D192ED03ull));
  return r.Next();
}

namespace {

struct MatchSlot {
  std::unique_ptr<MctsPlayer> black, white;
  bool a_black = true;
  MctsPlayer* Mover() const { return black->position().to_play() == Color::kBlack ? black.get() : white.get(); }
};

}  // namespace

Result<int> PlayMatch(const MctsOptions& options, int num_games, int parallel_games, uint64_t seed, Evaluator& a,
                      Evaluator& b, SearchStats* stats) {
  if (num_games < 0) return Status::InvalidArgument("minigo match num_games = " + std::to_string(num_games) + ": must be >= 0");
  std::vector<int> all(static_cast<size_t>(num_games));
  for (int g = 0; g < num_games; ++g) all[static_cast<size_t>(g)] = g;
  return PlayMatch(options, all, parallel_games, seed, a, b, stats);
}

Result<int> PlayMatch(const MctsOptions& options, std::span<const int> game_indices, int parallel_games,
                      uint64_t seed, Evaluator& a, Evaluator& b, SearchStats* stats) {
  PODBENCH_RETURN_IF_ERROR(options.Validate());
  // cc/eval.cc:93-95: evaluation players inject no noise, do not soft-pick,
  // and search under random symmetries.
  MctsOptions eval = options;
  eval.inject_noise = false;
  eval.soft_pick = false;
  eval.random_symmetry = true;
  if (parallel_games < 1) {
    return Status::InvalidArgument("minigo match parallel_games = " + std::to_string(parallel_games) + ": must be >= 1");
  }
  for (int g : game_indices) {
    if (g < 0) return Status::InvalidArgument("minigo match game index " + std::to_string(g) + ": must be >= 0");
  }
  const int num_games = static_cast<int>(game_indices.size());
  std::vector<MatchSlot> slots(static_cast<size_t>(std::min(parallel_games, num_games)));
  std::vector<bool> live(slots.size(), false);
  int next_game = 0, a_wins = 0;
  auto start = [&](size_t s) {
    if (next_game >= num_games) {
      live[s] = false;
      return;
    }
    const int g = game_indices[static_cast<size_t>(next_game++)];
    Rng rng(DeriveSeed(seed, static_cast<uint64_t>(g)));
    MatchSlot& m = slots[s];
    m.a_black = g % 2 == 0;  // alternating colours
    m.black = std::make_unique<MctsPlayer>(eval, rng.Next(), true);
    m.white = std::make_unique<MctsPlayer>(eval, rng.Next(), true);
    m.black->StartSearch();
    live[s] = true;
  };
  for (size_t s = 0; s < slots.size(); ++s) start(s);
  std::vector<MctsPlayer*> la, lb;
  for (;;) {
    la.clear();
    lb.clear();
    for (size_t s = 0; s < slots.size(); ++s) {
      if (!live[s]) continue;
      MctsPlayer* p = slots[s].Mover();
      const bool is_a = (p == slots[s].black.get()) == slots[s].a_black;
      (is_a ? la : lb).push_back(p);
    }
    if (la.empty() && lb.empty()) break;
    if (!la.empty()) PODBENCH_RETURN_IF_ERROR(SearchStep(la, a, stats));
    if (!lb.empty()) PODBENCH_RETURN_IF_ERROR(SearchStep(lb, b, stats));
    for (size_t s = 0; s < slots.size(); ++s) {
      if (!live[s]) continue;
      MatchSlot& m = slots[s];
      MctsPlayer* p = m.Mover();
      if (!p->SearchDone()) continue;
      const int move = p->ChooseMove();
      PODBENCH_RETURN_IF_ERROR(m.black->PlayMove(move));
      PODBENCH_RETURN_IF_ERROR(m.white->PlayMove(move));
      if (m.black->game_over()) {
        if ((m.black->Winner() == 1) == m.a_black) ++a_wins;
        start(s);
      } else {
        m.Mover()->StartSearch();
      }
    }
  }
  return a_wins;
}

Status LoopConfig::Validate() const {
  PODBENCH_RETURN_IF_ERROR(net.Validate());
  PODBENCH_RETURN_IF_ERROR(search.Validate());
  PODBENCH_RETURN_IF_ERROR(train.Validate());
  auto at_least = [](const char* field, int64_t v, int64_t lo) {
    return v >= lo ? Status::Ok()
                   : Status::InvalidArgument(std::string("minigo loop ") + field + " = " + std::to_string(v) +
                                             ": must be >= " + std::to_string(lo));
  };
  PODBENCH_RETURN_IF_ERROR(at_least("games_per_generation", games_per_generation, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("parallel_games", parallel_games, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("eval_max_batch", eval_max_batch, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("host_threads", host_threads, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("steps_per_generation", steps_per_generation, 0));
  PODBENCH_RETURN_IF_ERROR(at_least("window_generations", window_generations, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("generations", generations, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("gating_games", gating_games, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("target_games", target_games, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("bootstrap_games", bootstrap_games, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("bootstrap_readouts", bootstrap_readouts, 1));
  PODBENCH_RETURN_IF_ERROR(at_least("checkpoint_steps", checkpoint_steps, 0));
  PODBENCH_RETURN_IF_ERROR(at_least("target_generations", target_generations, 0));
  if (!(gating_win_rate >= 0 && gating_win_rate <= 1)) {
    return Status::InvalidArgument("minigo loop gating_win_rate = " + std::to_string(gating_win_rate) + ": must be in [0, 1]");
  }
  if (!(target_win_rate >= 0 && target_win_rate <= 1)) {
    return Status::InvalidArgument("minigo loop target_win_rate = " + std::to_string(target_win_rate) + ": must be in [0, 1]");
  }
  return Status::Ok();
}

std::string LoopConfig::RecipeKey(bool target, int cores) const {
  std::ostringstream k;
  k << "minigo-v3-net" << net.conv_width << "x" << net.trunk_layers << "-fc" << net.fc_width << "-vw"
    << net.value_cost_weight << "-l2" << net.l2_strength << "-boot" << bootstrap_games << "r" << bootstrap_readouts
    << "-vl" << search.virtual_losses << "-b" << train.batch << "-steps" << checkpoint_steps << "-lr";
  for (float lr : train.learning_rates) k << lr << "_";
  for (int64_t s : train.boundaries) k << s << "_";
  if (target) {
    k << "-target" << target_generations << "g" << games_per_generation << "r" << search.num_readouts << "s"
      << steps_per_generation << "w" << window_generations;
  }
  if (!pass_in_policy_target) k << "-nopass";
  k << "-cores" << cores << "-seed" << recipe_seed;
  return k.str();
}

namespace {
constexpr char kMagic[8] = {'P', 'B', 'M', 'G', 'O', '0', '0', '1'};

template <typename T>
void Put(std::ofstream& f, const std::vector<T>& v) {
  const int64_t n = static_cast<int64_t>(v.size());
  f.write(reinterpret_cast<const char*>(&n), sizeof n);
  f.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
}
template <typename T>
bool Get(std::ifstream& f, std::vector<T>* v, int64_t expect = -1) {
  int64_t n = 0;
  if (!f.read(reinterpret_cast<char*>(&n), sizeof n) || n < 0 || (expect >= 0 && n != expect) || n > (int64_t{1} << 34)) return false;
  v->resize(static_cast<size_t>(n));
  return static_cast<bool>(f.read(reinterpret_cast<char*>(v->data()), static_cast<std::streamsize>(v->size() * sizeof(T))));
}
}  // namespace

Status SaveModel(const std::filesystem::path& path, const Network& net, const ExampleSet* examples) {
  // A temporary name of this process's own: ranks sharing a cache folder
  // may write the same file at once.
  std::filesystem::path tmp = path;
  tmp += ".tmp-" + std::to_string(static_cast<unsigned long long>(::getpid())) + "-" +
         std::to_string(std::random_device{}());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) return Status::IOError(tmp.string() + ": cannot be written");
    f.write(kMagic, sizeof kMagic);
    Put(f, net.parameters());
    Put(f, net.bn_statistics());
    const ExampleSet none;
    const ExampleSet& e = examples ? *examples : none;
    Put(f, e.features);
    Put(f, e.pi);
    Put(f, e.z);
    if (!f) return Status::IOError(tmp.string() + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Status::IOError(path.string() + ": cannot be renamed into place: " + ec.message());
  return Status::Ok();
}

Status LoadModel(const std::filesystem::path& path, Network* net, ExampleSet* examples) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status::IOError(path.string() + ": cannot be read");
  char magic[sizeof kMagic];
  if (!f.read(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
    return Status::Corruption(path.string() + ": not a podbench MiniGo model");
  }
  ExampleSet e;
  if (!Get(f, &net->parameters(), net->num_parameters()) ||
      !Get(f, &net->bn_statistics(), static_cast<int64_t>(net->bn_statistics().size())) || !Get(f, &e.features) ||
      !Get(f, &e.pi) || !Get(f, &e.z) || e.features.size() != e.z.size() * kFeatureSize ||
      e.pi.size() != e.z.size() * kNumMoves) {
    return Status::Corruption(path.string() + ": truncated, or made for another network size");
  }
  if (examples) *examples = std::move(e);
  return Status::Ok();
}

Result<LoopResult> RunLoop(const LoopConfig& config, const std::filesystem::path& cache_dir) {
  PODBENCH_ASSIGN_OR_RETURN(std::unique_ptr<LoopSession> session,
                            LoopSession::Create(config, 1, topology::OneProcess(), cache_dir));
  LoopResult result;
  PODBENCH_ASSIGN_OR_RETURN(const SetupEvent setup, session->Initialize());
  result.checkpoint_cached = setup.checkpoint_cached;
  result.target_cached = setup.target_cached;
  for (int g = 1; g <= config.generations; ++g) {
    PODBENCH_ASSIGN_OR_RETURN(GenerationEvent ev, session->Generation(g));
    result.generations.push_back(ev);
  }
  // Target evaluation, in training order, to the first winner.
  for (int g = 1; g <= config.generations; ++g) {
    PODBENCH_ASSIGN_OR_RETURN(TargetEvalEvent t, session->EvaluateTarget(g));
    result.target_evals.push_back(t);
    if (t.win_rate >= config.target_win_rate) {
      result.winning_iteration = g;
      result.winning_save_seconds = result.generations[static_cast<size_t>(g - 1)].save_seconds;
      break;
    }
  }
  return result;
}

}  // namespace podbench::minigo
