#include "workloads/minigo/minigo_loop.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>
#include <utility>

#include "kernels/thread_pool.h"
#include "workloads/minigo/go/random.h"

namespace podbench::minigo {

namespace {

// A stream seed from the run's seed and a path (generation, phase).
uint64_t Derive(uint64_t seed, uint64_t a, uint64_t b = 0) {
  Rng r(seed ^ (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xD1B54A32D192ED03ull));
  return r.Next();
}

struct MatchSlot {
  std::unique_ptr<MctsPlayer> black, white;
  bool a_black = true;
  MctsPlayer* Mover() const { return black->position().to_play() == Color::kBlack ? black.get() : white.get(); }
};

}  // namespace

Result<int> PlayMatch(const MctsOptions& options, int num_games, int parallel_games, uint64_t seed, Evaluator& a,
                      Evaluator& b, SearchStats* stats) {
  PODBENCH_RETURN_IF_ERROR(options.Validate());
  if (num_games < 0) return Status::InvalidArgument("minigo match num_games = " + std::to_string(num_games) + ": must be >= 0");
  if (parallel_games < 1) {
    return Status::InvalidArgument("minigo match parallel_games = " + std::to_string(parallel_games) + ": must be >= 1");
  }
  std::vector<MatchSlot> slots(static_cast<size_t>(std::min(parallel_games, num_games)));
  std::vector<bool> live(slots.size(), false);
  int next_game = 0, a_wins = 0;
  auto start = [&](size_t s) {
    if (next_game >= num_games) {
      live[s] = false;
      return;
    }
    const int g = next_game++;
    Rng rng(Derive(seed, static_cast<uint64_t>(g)));
    MatchSlot& m = slots[s];
    m.a_black = g % 2 == 0;  // alternating colours
    m.black = std::make_unique<MctsPlayer>(options, rng.Next(), true);
    m.white = std::make_unique<MctsPlayer>(options, rng.Next(), true);
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

std::string LoopConfig::RecipeKey(bool target) const {
  std::ostringstream k;
  k << "minigo-v1-net" << net.conv_width << "x" << net.trunk_layers << "-fc" << net.fc_width << "-vw"
    << net.value_cost_weight << "-l2" << net.l2_strength << "-boot" << bootstrap_games << "r" << bootstrap_readouts
    << "-vl" << search.virtual_losses << "-b" << train.batch << "-steps" << checkpoint_steps << "-lr";
  for (float lr : train.learning_rates) k << lr << "_";
  for (int64_t s : train.boundaries) k << s << "_";
  if (target) {
    k << "-target" << target_generations << "g" << games_per_generation << "r" << search.num_readouts << "s"
      << steps_per_generation << "w" << window_generations;
  }
  k << "-seed" << seed;
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
  std::filesystem::path tmp = path;
  tmp += ".tmp";
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

namespace {

double DefaultPrice(const LoopConfig& c, int64_t macs, const PhaseWork& w) {
  (void)c;
  return 1e-9 * static_cast<double>(macs) *
         (static_cast<double>(w.positions_evaluated) + 3.0 * static_cast<double>(w.examples_trained));
}

// One generation's self-play by `net`: its games' examples and positions evaluated.
Status SelfPlay(const LoopConfig& c, const MctsOptions& options, int games, uint64_t seed, Network* net,
                ExampleSet* out, int64_t* evaluated) {
  NetworkEvaluator eval(net, c.eval_max_batch);
  PODBENCH_ASSIGN_OR_RETURN(std::vector<SelfPlayGame> played,
                            PlaySelfPlayGames(options, games, c.parallel_games, seed, eval));
  for (const SelfPlayGame& g : played) PODBENCH_RETURN_IF_ERROR(AppendGameExamples(g, out));
  *evaluated = eval.positions();
  return Status::Ok();
}

ExampleSet Window(const std::deque<ExampleSet>& chunks) {
  ExampleSet w;
  for (const ExampleSet& e : chunks) w.Append(e);
  return w;
}

// Runs fn(0) and fn(1) on two threads of the kernels' pool (one after the
// other on a one-thread pool).
void RunBoth(const std::function<void(int)>& fn) {
  kernels::ThreadPool& pool = kernels::DefaultThreadPool();
  if (pool.threads() >= 2) {
    pool.Run(2, fn);
  } else {
    fn(0);
    fn(1);
  }
}

struct Setup {
  TrainState latest;
  std::deque<ExampleSet> window;
};

// The checkpoint recipe: bootstrap games by a random model, then training.
Status MakeCheckpoint(const LoopConfig& c, Setup* s) {
  PODBENCH_ASSIGN_OR_RETURN(s->latest.net, Network::Create(c.net, Derive(c.seed, 1)));
  MctsOptions boot = c.search;
  boot.num_readouts = c.bootstrap_readouts;  // minigo-v0.6.md §RL loop "Bootstrap": 20 readouts
  ExampleSet games;
  int64_t evaluated = 0;
  PODBENCH_RETURN_IF_ERROR(SelfPlay(c, boot, c.bootstrap_games, Derive(c.seed, 2), s->latest.net.get(), &games, &evaluated));
  PODBENCH_RETURN_IF_ERROR(Train(&s->latest, games, c.train, c.checkpoint_steps, Derive(c.seed, 3)).status());
  s->window.clear();
  s->window.push_back(std::move(games));
  return Status::Ok();
}

}  // namespace

Result<LoopResult> RunLoop(const LoopConfig& config, const std::filesystem::path& cache_dir) {
  PODBENCH_RETURN_IF_ERROR(config.Validate());
  const LoopConfig& c = config;
  LoopResult result;
  if (!cache_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cache_dir, ec);
    if (ec) return Status::IOError(cache_dir.string() + ": cannot create the MiniGo cache folder: " + ec.message());
  }
  // The checkpoint (with its games as generation 0 of the window).
  Setup s;
  const std::filesystem::path ckpt_path = cache_dir.empty() ? "" : cache_dir / (c.RecipeKey(false) + ".ckpt");
  if (!cache_dir.empty() && std::filesystem::exists(ckpt_path)) {
    PODBENCH_ASSIGN_OR_RETURN(s.latest.net, Network::Create(c.net, 0));
    ExampleSet games;
    PODBENCH_RETURN_IF_ERROR(LoadModel(ckpt_path, s.latest.net.get(), &games));
    s.latest.global_step = c.checkpoint_steps;
    s.window.push_back(std::move(games));
    result.checkpoint_cached = true;
  } else {
    PODBENCH_RETURN_IF_ERROR(MakeCheckpoint(c, &s));
    if (!cache_dir.empty()) PODBENCH_RETURN_IF_ERROR(SaveModel(ckpt_path, *s.latest.net, &s.window.front()));
  }
  auto progress = [&](const std::string& what) {
    if (c.progress) c.progress(what);
  };
  progress("checkpoint");
  const Setup start_state{TrainState{s.latest.net->Clone(), {}, s.latest.global_step}, s.window};

  // The target: the checkpoint, then target_generations always-promoted
  // generations (untimed).
  std::unique_ptr<Network> target;
  const std::filesystem::path target_path = cache_dir.empty() ? "" : cache_dir / (c.RecipeKey(true) + ".target");
  if (!cache_dir.empty() && std::filesystem::exists(target_path)) {
    PODBENCH_ASSIGN_OR_RETURN(target, Network::Create(c.net, 0));
    PODBENCH_RETURN_IF_ERROR(LoadModel(target_path, target.get(), nullptr));
    result.target_cached = true;
  } else {
    TrainState t{s.latest.net->Clone(), {}, s.latest.global_step};
    std::deque<ExampleSet> window = s.window;
    for (int g = 1; g <= c.target_generations; ++g) {
      ExampleSet games;
      int64_t evaluated = 0;
      PODBENCH_RETURN_IF_ERROR(
          SelfPlay(c, c.search, c.games_per_generation, Derive(c.seed, 100 + static_cast<uint64_t>(g)), t.net.get(), &games, &evaluated));
      window.push_back(std::move(games));
      while (static_cast<int>(window.size()) > c.window_generations) window.pop_front();
      PODBENCH_RETURN_IF_ERROR(
          Train(&t, Window(window), c.train, c.steps_per_generation, Derive(c.seed, 200 + static_cast<uint64_t>(g))).status());
    }
    target = std::move(t.net);
    if (!cache_dir.empty()) PODBENCH_RETURN_IF_ERROR(SaveModel(target_path, *target, nullptr));
  }
  progress("target");

  // The timed generations.
  const int64_t macs = s.latest.net->MacsPerPosition();
  auto price = [&](const PhaseWork& w) { return c.price ? c.price(w) : DefaultPrice(c, macs, w); };
  TrainState latest{start_state.latest.net->Clone(), {}, start_state.latest.global_step};
  std::deque<ExampleSet> window = start_state.window;
  std::unique_ptr<Network> best = latest.net->Clone();
  std::vector<std::unique_ptr<Network>> saved;
  double now = 0;
  for (int g = 1; g <= c.generations; ++g) {
    const uint64_t gs = static_cast<uint64_t>(g);
    GenerationEvent ev;
    ev.iteration = g;
    ev.start_seconds = now;
    ExampleSet games;
    int64_t sp_evaluated = 0, gate_evaluated = 0;
    Status sp_status, tr_status;
    std::unique_ptr<Network> candidate;
    int gate_wins = 0;
    const ExampleSet train_window = Window(window);
    RunBoth([&](int path) {
      if (path == 0) {
        sp_status = SelfPlay(c, c.search, c.games_per_generation, Derive(c.seed, 1000 + gs, 0), best.get(), &games,
                             &sp_evaluated);
        return;
      }
      auto losses = Train(&latest, train_window, c.train, c.steps_per_generation, Derive(c.seed, 1000 + gs, 1));
      if (!losses.ok()) {
        tr_status = losses.status();
        return;
      }
      double sum = 0;
      for (const Losses& l : *losses) sum += l.total();
      ev.train_loss = losses->empty() ? 0 : sum / static_cast<double>(losses->size());
      candidate = latest.net->Clone();
      std::unique_ptr<Network> incumbent = best->Clone();  // self-play is still using `best`
      NetworkEvaluator ce(candidate.get(), c.eval_max_batch), ie(incumbent.get(), c.eval_max_batch);
      auto wins = PlayMatch(c.search, c.gating_games, c.parallel_games, Derive(c.seed, 1000 + gs, 2), ce, ie);
      if (!wins.ok()) {
        tr_status = wins.status();
        return;
      }
      gate_wins = *wins;
      gate_evaluated = ce.positions() + ie.positions();
    });
    PODBENCH_RETURN_IF_ERROR(sp_status.WithContext("minigo generation " + std::to_string(g) + " self-play"));
    PODBENCH_RETURN_IF_ERROR(tr_status.WithContext("minigo generation " + std::to_string(g) + " training"));
    const double t_sp = price({PhaseWork::Kind::kSelfPlay, sp_evaluated, 0});
    const double t_tr =
        price({PhaseWork::Kind::kTrain, 0, static_cast<int64_t>(c.steps_per_generation) * c.train.batch});
    const double t_gate = price({PhaseWork::Kind::kGating, gate_evaluated, 0});
    ev.save_seconds = now + t_tr;
    ev.end_seconds = now + std::max(t_sp, t_tr + t_gate);
    now = ev.end_seconds;
    ev.selfplay_games = c.games_per_generation;
    ev.selfplay_positions = games.size();
    ev.gating_win_rate = static_cast<float>(gate_wins) / static_cast<float>(c.gating_games);
    ev.promoted = ev.gating_win_rate >= c.gating_win_rate;
    if (ev.promoted) best = candidate->Clone();
    saved.push_back(std::move(candidate));
    window.push_back(std::move(games));
    while (static_cast<int>(window.size()) > c.window_generations) window.pop_front();
    result.generations.push_back(ev);
    progress("generation " + std::to_string(g));
  }

  // Target evaluation, in training order, to the first winner.
  NetworkEvaluator te(target.get(), c.eval_max_batch);
  for (size_t i = 0; i < saved.size(); ++i) {
    NetworkEvaluator me(saved[i].get(), c.eval_max_batch);
    const int64_t before = te.positions();
    PODBENCH_ASSIGN_OR_RETURN(int wins, PlayMatch(c.search, c.target_games, c.parallel_games,
                                                  Derive(c.seed, 5000 + i), me, te));
    TargetEvalEvent t;
    t.iteration = static_cast<int>(i) + 1;
    t.win_rate = static_cast<float>(wins) / static_cast<float>(c.target_games);
    t.seconds = price({PhaseWork::Kind::kTargetEval, me.positions() + te.positions() - before, 0});
    result.target_evals.push_back(t);
    progress("target eval " + std::to_string(t.iteration));
    if (t.win_rate >= c.target_win_rate) {
      result.winning_iteration = t.iteration;
      result.winning_save_seconds = result.generations[i].save_seconds;
      break;
    }
  }
  return result;
}

}  // namespace podbench::minigo
