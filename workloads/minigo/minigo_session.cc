#include "workloads/minigo/minigo_session.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <functional>
#include <initializer_list>
#include <map>
#include <span>
#include <system_error>
#include <utility>

#include "base/hash.h"
#include "kernels/thread_pool.h"

namespace podbench::minigo {

namespace {

// ------------------------------------------------------------ bytes

void PutBytes(std::string* out, const void* p, size_t n) { out->append(static_cast<const char*>(p), n); }
template <typename T>
void PutPod(std::string* out, T v) {
  PutBytes(out, &v, sizeof v);
}
template <typename T>
void PutVec(std::string* out, const std::vector<T>& v) {
  PutPod<int64_t>(out, static_cast<int64_t>(v.size()));
  PutBytes(out, v.data(), v.size() * sizeof(T));
}

// Reads what Put* wrote; any short read makes ok() false.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  template <typename T>
  T Pod() {
    T v{};
    if (b_.size() - pos_ < sizeof v) {
      ok_ = false;
      return v;
    }
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }
  template <typename T>
  std::vector<T> Vec() {
    const int64_t n = Pod<int64_t>();
    std::vector<T> v;
    if (!ok_ || n < 0 || static_cast<uint64_t>(n) > (b_.size() - pos_) / sizeof(T)) {
      ok_ = false;
      return v;
    }
    v.resize(static_cast<size_t>(n));
    std::memcpy(v.data(), b_.data() + pos_, v.size() * sizeof(T));
    pos_ += v.size() * sizeof(T);
    return v;
  }
  std::string_view Bytes(int64_t n) {
    if (n < 0 || static_cast<uint64_t>(n) > b_.size() - pos_) {
      ok_ = false;
      return {};
    }
    std::string_view s = b_.substr(pos_, static_cast<size_t>(n));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  bool ok() const { return ok_; }
  bool done() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// ------------------------------------------------------------ games over cores and ranks

// What this rank's cores did in one phase: each of their games' examples
// (self-play), the positions their evaluators saw, their wins (matches),
// and the first error (the other ranks must still meet it in the gather).
struct Part {
  std::map<int, std::string> games;  // game index -> its serialized ExampleSet
  int64_t evaluated = 0, wins = 0;
  Status status;
};

// The phase over every rank: the games' examples in game order.
struct Joined {
  ExampleSet examples;
  int64_t evaluated = 0, wins = 0;
};

// All-gathers `parts` (the same phases on every rank, in the same order) and
// joins each. `games[i]` is the number of games of parts[i] whose examples
// are expected (0 for a match). Errors: a rank's phase error (naming the
// rank), a malformed or incomplete gather (Internal), the group's errors.
Result<std::vector<Joined>> Share(topology::RankGroup& ranks, const std::vector<const Part*>& parts,
                                  const std::vector<int>& games, const std::string& what) {
  std::string mine;
  for (const Part* p : parts) {
    const std::string err = p->status.ok() ? std::string() : p->status.ToString();
    PutPod<int64_t>(&mine, static_cast<int64_t>(err.size()));
    mine += err;
    PutPod<int64_t>(&mine, p->evaluated);
    PutPod<int64_t>(&mine, p->wins);
    PutPod<int64_t>(&mine, static_cast<int64_t>(p->games.size()));
    for (const auto& [k, bytes] : p->games) {
      PutPod<int32_t>(&mine, k);
      PutPod<int64_t>(&mine, static_cast<int64_t>(bytes.size()));
      mine += bytes;
    }
  }
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all, ranks.AllGather(mine));
  std::vector<Joined> out(parts.size());
  std::vector<std::map<int, std::string_view>> by_game(parts.size());
  for (size_t r = 0; r < all.size(); ++r) {
    Reader in(all[r]);
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string_view err = in.Bytes(in.Pod<int64_t>());
      if (in.ok() && !err.empty()) {
        return Status::Internal(what + ": rank " + std::to_string(r) + " failed: " + std::string(err));
      }
      out[i].evaluated += in.Pod<int64_t>();
      out[i].wins += in.Pod<int64_t>();
      const int64_t n = in.Pod<int64_t>();
      for (int64_t j = 0; in.ok() && j < n; ++j) {
        const int k = in.Pod<int32_t>();
        by_game[i][k] = in.Bytes(in.Pod<int64_t>());
      }
    }
    if (!in.ok() || !in.done()) {
      return Status::Internal(what + ": rank " + std::to_string(r) + "'s games are malformed");
    }
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (static_cast<int>(by_game[i].size()) != games[i]) {
      return Status::Internal(what + ": " + std::to_string(by_game[i].size()) + " games' examples gathered, want " +
                              std::to_string(games[i]));
    }
    for (const auto& [k, bytes] : by_game[i]) {
      Reader in(bytes);
      ExampleSet e;
      e.features = in.Vec<float>();
      e.pi = in.Vec<float>();
      e.z = in.Vec<float>();
      if (!in.ok() || !in.done() || e.features.size() != e.z.size() * kFeatureSize ||
          e.pi.size() != e.z.size() * kNumMoves) {
        return Status::Internal(what + ": game " + std::to_string(k) + "'s examples are malformed");
      }
      out[i].examples.Append(e);
    }
  }
  return out;
}

// ------------------------------------------------------------ the loop's pieces

double DefaultPrice(int64_t macs, const PhaseWork& w) {
  return 1e-9 * static_cast<double>(macs) *
         (static_cast<double>(w.positions_evaluated) + 3.0 * static_cast<double>(w.examples_trained));
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

}  // namespace

std::vector<int> GamesOfCore(int games, int cores, int core) {
  std::vector<int> out;
  for (int k = core; k < games; k += cores) out.push_back(k);
  return out;
}

struct LoopSession::State {
  topology::CoreBlock local;
  TrainState latest;
  std::deque<ExampleSet> window;
  std::unique_ptr<Network> best, target, checkpoint;
  std::vector<std::unique_ptr<Network>> saved;  // model g at g - 1
  bool initialized = false;
  double now = 0;
  int64_t macs = 0;

  // This rank's cores' self-play games of `games` by `net`, on `threads`
  // host threads (each with its own copy of the network; the games and their
  // results do not depend on the split).
  Part SelfPlay(const LoopConfig& c, int cores, const MctsOptions& options, int games, uint64_t seed, Network* net,
                int threads = 1) {
    return OverCores(threads, {net}, [&](int core, std::span<Network* const> nets, Part* p) -> Status {
      const std::vector<int> mine = GamesOfCore(games, cores, core);
      if (mine.empty()) return Status::Ok();
      NetworkEvaluator eval(nets[0], c.eval_max_batch);
      auto played = PlaySelfPlayGames(options, mine, c.parallel_games, seed, eval);
      if (!played.ok()) return played.status().WithContext("core " + std::to_string(core));
      for (size_t i = 0; i < mine.size(); ++i) {
        ExampleSet e;
        if (Status st = AppendGameExamples((*played)[i], &e, c.pass_in_policy_target); !st.ok()) {
          return st.WithContext("game " + std::to_string(mine[i]));
        }
        std::string bytes;
        PutVec(&bytes, e.features);
        PutVec(&bytes, e.pi);
        PutVec(&bytes, e.z);
        p->games[mine[i]] = std::move(bytes);
      }
      p->evaluated += eval.positions();
      return Status::Ok();
    });
  }

  // This rank's cores' games of a `games`-game match of a against b, on
  // `threads` host threads as SelfPlay.
  Part Match(const LoopConfig& c, int cores, int games, uint64_t seed, Network* a, Network* b, int threads = 1) {
    return OverCores(threads, {a, b}, [&](int core, std::span<Network* const> nets, Part* p) -> Status {
      const std::vector<int> mine = GamesOfCore(games, cores, core);
      if (mine.empty()) return Status::Ok();
      NetworkEvaluator ea(nets[0], c.eval_max_batch), eb(nets[1], c.eval_max_batch);
      auto wins = PlayMatch(c.search, mine, c.parallel_games, seed, ea, eb);
      if (!wins.ok()) return wins.status().WithContext("core " + std::to_string(core));
      p->wins += *wins;
      p->evaluated += ea.positions() + eb.positions();
      return Status::Ok();
    });
  }

  // Runs core(k, nets, part) for each of this rank's cores k, in order, on
  // n = min(threads, the pool's threads, cores) host threads: thread t takes
  // the cores k with (k - local.begin) % n == t, adding to its own part,
  // thread 0 with `nets` themselves and the others with clones (a Network's
  // inference keeps scratch, so one copy serves one thread). A thread stops
  // at its first failing core; the joined Part carries the error of the
  // lowest failing core, as DataParallel::OnEveryCore returns.
  Part OverCores(int threads, std::initializer_list<Network*> nets,
                 const std::function<Status(int, std::span<Network* const>, Part*)>& core) {
    const int n = std::max(1, std::min({threads, kernels::DefaultThreadPool().threads(), local.end - local.begin}));
    std::vector<Part> parts(static_cast<size_t>(n));
    std::vector<Status> status(static_cast<size_t>(std::max(0, local.end - local.begin)));
    std::vector<std::vector<std::unique_ptr<Network>>> copies(static_cast<size_t>(n));
    std::vector<std::vector<Network*>> use(static_cast<size_t>(n), std::vector<Network*>(nets));
    for (int t = 1; t < n; ++t) {
      for (Network*& net : use[static_cast<size_t>(t)]) {
        copies[static_cast<size_t>(t)].push_back(net->Clone());
        net = copies[static_cast<size_t>(t)].back().get();
      }
    }
    auto run = [&](int t) {
      for (int k = local.begin + t; k < local.end; k += n) {
        Status& st = status[static_cast<size_t>(k - local.begin)];
        st = core(k, use[static_cast<size_t>(t)], &parts[static_cast<size_t>(t)]);
        if (!st.ok()) return;
      }
    };
    if (n == 1) {
      run(0);
    } else {
      kernels::DefaultThreadPool().Run(n, run);
    }
    Part joined;
    for (Part& p : parts) {
      joined.games.merge(p.games);
      joined.evaluated += p.evaluated;
      joined.wins += p.wins;
    }
    for (const Status& st : status) {
      if (!st.ok()) {
        joined.status = st;
        break;
      }
    }
    return joined;
  }

  void Push(ExampleSet games, int window_generations) {
    window.push_back(std::move(games));
    while (static_cast<int>(window.size()) > window_generations) window.pop_front();
  }
};

LoopSession::LoopSession(const LoopConfig& config, int cores, std::shared_ptr<topology::RankGroup> ranks,
                         std::filesystem::path cache_dir)
    : c_(config), cores_(cores), ranks_(std::move(ranks)), cache_dir_(std::move(cache_dir)),
      s_(std::make_unique<State>()) {
  s_->local = ranks_->CoresOf(cores_);
}

LoopSession::~LoopSession() = default;

Result<std::unique_ptr<LoopSession>> LoopSession::Create(const LoopConfig& config, int cores,
                                                         std::shared_ptr<topology::RankGroup> ranks,
                                                         std::filesystem::path cache_dir) {
  PODBENCH_RETURN_IF_ERROR(config.Validate());
  if (cores < 1) return Status::InvalidArgument("minigo loop cores = " + std::to_string(cores) + ": must be >= 1");
  if (!ranks) ranks = topology::OneProcess();
  return std::unique_ptr<LoopSession>(new LoopSession(config, cores, std::move(ranks), std::move(cache_dir)));
}

Result<SetupEvent> LoopSession::Initialize() {
  if (s_->initialized) return Status::FailedPrecondition("minigo loop: Initialize called twice");
  const LoopConfig& c = c_;
  State& s = *s_;
  SetupEvent ev;
  if (!cache_dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(cache_dir_, ec);
    if (ec) return Status::IOError(cache_dir_.string() + ": cannot create the MiniGo cache folder: " + ec.message());
  }
  const std::filesystem::path ckpt_path = cache_dir_.empty() ? "" : cache_dir_ / (c.RecipeKey(false, cores_) + ".ckpt");
  const std::filesystem::path target_path = cache_dir_.empty() ? "" : cache_dir_ / (c.RecipeKey(true, cores_) + ".target");
  // Cached only where every rank has the file.
  std::string have = "00";
  if (!cache_dir_.empty() && std::filesystem::exists(ckpt_path)) have[0] = '1';
  if (!cache_dir_.empty() && std::filesystem::exists(target_path)) have[1] = '1';
  PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all_have, ranks_->AllGather(have));
  ev.checkpoint_cached = ev.target_cached = true;
  for (const std::string& h : all_have) {
    ev.checkpoint_cached = ev.checkpoint_cached && h.size() == 2 && h[0] == '1';
    ev.target_cached = ev.target_cached && h.size() == 2 && h[1] == '1';
  }

  // The checkpoint (its games are generation 0 of the window): bootstrap
  // games by a random model, then training.
  if (ev.checkpoint_cached) {
    PODBENCH_ASSIGN_OR_RETURN(s.latest.net, Network::Create(c.net, 0));
    ExampleSet games;
    PODBENCH_RETURN_IF_ERROR(LoadModel(ckpt_path, s.latest.net.get(), &games));
    s.window.push_back(std::move(games));
  } else {
    PODBENCH_ASSIGN_OR_RETURN(s.latest.net, Network::Create(c.net, DeriveSeed(c.recipe_seed, 1)));
    MctsOptions boot = c.search;
    boot.num_readouts = c.bootstrap_readouts;  // minigo-v0.6.md §RL loop "Bootstrap": 20 readouts
    // podbench's recipe: every bootstrap game is played out and scored. A
    // random network's value head often saturates, and at the v0.6 resign
    // threshold (-0.99) most of its games would resign within a few moves,
    // leaving outcomes that say nothing about the board.
    boot.disable_resign_pct = 1.0f;
    const Part p = s.SelfPlay(c, cores_, boot, c.bootstrap_games, DeriveSeed(c.recipe_seed, 2), s.latest.net.get(),
                              c.host_threads);
    PODBENCH_ASSIGN_OR_RETURN(std::vector<Joined> j, Share(*ranks_, {&p}, {c.bootstrap_games}, "minigo bootstrap"));
    PODBENCH_RETURN_IF_ERROR(
        Train(&s.latest, j[0].examples, c.train, c.checkpoint_steps, DeriveSeed(c.recipe_seed, 3)).status());
    s.window.push_back(std::move(j[0].examples));
    if (!cache_dir_.empty()) PODBENCH_RETURN_IF_ERROR(SaveModel(ckpt_path, *s.latest.net, &s.window.front()));
  }
  s.latest.global_step = c.checkpoint_steps;
  s.latest.velocity.clear();  // the timed loop starts from the weights alone, cached or not
  if (c.progress) c.progress("checkpoint");

  // The target: the checkpoint, then target_generations always-promoted
  // generations.
  if (ev.target_cached) {
    PODBENCH_ASSIGN_OR_RETURN(s.target, Network::Create(c.net, 0));
    PODBENCH_RETURN_IF_ERROR(LoadModel(target_path, s.target.get(), nullptr));
  } else {
    TrainState t{s.latest.net->Clone(), {}, s.latest.global_step};
    std::deque<ExampleSet> window = s.window;
    for (int g = 1; g <= c.target_generations; ++g) {
      const uint64_t gs = static_cast<uint64_t>(g);
      const Part p = s.SelfPlay(c, cores_, c.search, c.games_per_generation, DeriveSeed(c.recipe_seed, 100 + gs),
                                t.net.get(), c.host_threads);
      PODBENCH_ASSIGN_OR_RETURN(std::vector<Joined> j,
                                Share(*ranks_, {&p}, {c.games_per_generation}, "minigo target generation " + std::to_string(g)));
      window.push_back(std::move(j[0].examples));
      while (static_cast<int>(window.size()) > c.window_generations) window.pop_front();
      PODBENCH_RETURN_IF_ERROR(
          Train(&t, Window(window), c.train, c.steps_per_generation, DeriveSeed(c.recipe_seed, 200 + gs)).status());
    }
    s.target = std::move(t.net);
    if (!cache_dir_.empty()) PODBENCH_RETURN_IF_ERROR(SaveModel(target_path, *s.target, nullptr));
  }
  if (c.progress) c.progress("target");

  s.macs = s.latest.net->MacsPerPosition();
  s.best = s.latest.net->Clone();
  s.checkpoint = s.latest.net->Clone();
  const int64_t recipe_steps =
      static_cast<int64_t>(c.checkpoint_steps) + static_cast<int64_t>(c.target_generations) * c.steps_per_generation;
  const PhaseWork setup{PhaseWork::Kind::kTrain, 0, recipe_steps * c.train.batch};
  ev.seconds = c.price ? c.price(setup) : DefaultPrice(s.macs, setup);
  s.initialized = true;
  return ev;
}

Result<GenerationEvent> LoopSession::Generation(int g) {
  State& s = *s_;
  if (!s.initialized || g != static_cast<int>(s.saved.size()) + 1) {
    return Status::FailedPrecondition("minigo loop: generation " + std::to_string(g) + " asked for after " +
                                      std::to_string(s.saved.size()) +
                                      (s.initialized ? " generations" : " generations and no Initialize"));
  }
  const LoopConfig& c = c_;
  const uint64_t gs = static_cast<uint64_t>(g);
  GenerationEvent ev;
  ev.iteration = g;
  ev.start_seconds = s.now;
  Part sp, gate;
  std::unique_ptr<Network> candidate;
  const ExampleSet train_window = Window(s.window);
  RunBoth([&](int path) {
    if (path == 0) {
      sp = s.SelfPlay(c, cores_, c.search, c.games_per_generation, DeriveSeed(c.seed, 1000 + gs, 0), s.best.get());
      return;
    }
    auto losses = Train(&s.latest, train_window, c.train, c.steps_per_generation, DeriveSeed(c.seed, 1000 + gs, 1));
    if (!losses.ok()) {
      gate.status = losses.status().WithContext("training");
      return;
    }
    double sum = 0;
    for (const Losses& l : *losses) sum += l.total();
    ev.train_loss = losses->empty() ? 0 : sum / static_cast<double>(losses->size());
    candidate = s.latest.net->Clone();
    std::unique_ptr<Network> incumbent = s.best->Clone();  // self-play is still using `best`
    gate = s.Match(c, cores_, c.gating_games, DeriveSeed(c.seed, 1000 + gs, 2), candidate.get(), incumbent.get());
    if (!gate.status.ok()) gate.status = gate.status.WithContext("gating");
  });
  PODBENCH_ASSIGN_OR_RETURN(std::vector<Joined> j, Share(*ranks_, {&sp, &gate}, {c.games_per_generation, 0},
                                                         "minigo generation " + std::to_string(g)));
  auto price = [&](const PhaseWork& w) { return c.price ? c.price(w) : DefaultPrice(s.macs, w); };
  const double t_sp = price({PhaseWork::Kind::kSelfPlay, j[0].evaluated, 0});
  const double t_tr = price({PhaseWork::Kind::kTrain, 0, static_cast<int64_t>(c.steps_per_generation) * c.train.batch});
  const double t_gate = price({PhaseWork::Kind::kGating, j[1].evaluated, 0});
  ev.train_seconds = t_tr;
  ev.gating_seconds = t_gate;
  ev.selfplay_seconds = t_sp;
  ev.save_seconds = s.now + t_tr;
  ev.end_seconds = s.now + std::max(t_sp, t_tr + t_gate);
  s.now = ev.end_seconds;
  ev.selfplay_games = c.games_per_generation;
  ev.selfplay_positions = j[0].examples.size();
  ev.gating_win_rate = static_cast<float>(j[1].wins) / static_cast<float>(c.gating_games);
  ev.promoted = ev.gating_win_rate >= c.gating_win_rate;
  if (ev.promoted) s.best = candidate->Clone();
  s.saved.push_back(std::move(candidate));
  s.Push(std::move(j[0].examples), c.window_generations);
  if (c.progress) c.progress("generation " + std::to_string(g));
  return ev;
}

Result<TargetEvalEvent> LoopSession::EvaluateTarget(int g) {
  State& s = *s_;
  if (!s.initialized || g < 0 || g > static_cast<int>(s.saved.size())) {
    return Status::FailedPrecondition("minigo loop: model " + std::to_string(g) + " evaluated, but " +
                                      std::to_string(s.saved.size()) + " generations have run" +
                                      (s.initialized ? "" : " and no Initialize"));
  }
  const LoopConfig& c = c_;
  Network* model = g == 0 ? s.checkpoint.get() : s.saved[static_cast<size_t>(g - 1)].get();
  const Part p = s.Match(c, cores_, c.target_games, DeriveSeed(c.seed, 4999 + static_cast<uint64_t>(g)), model,
                         s.target.get(), c.host_threads);
  PODBENCH_ASSIGN_OR_RETURN(std::vector<Joined> j,
                            Share(*ranks_, {&p}, {0}, "minigo target evaluation of model " + std::to_string(g)));
  TargetEvalEvent t;
  t.iteration = g;
  t.wins = static_cast<int>(j[0].wins);
  t.win_rate = static_cast<float>(j[0].wins) / static_cast<float>(c.target_games);
  const PhaseWork w{PhaseWork::Kind::kTargetEval, j[0].evaluated, 0};
  t.seconds = c.price ? c.price(w) : DefaultPrice(s.macs, w);
  if (c.progress) c.progress("target eval " + std::to_string(g));
  return t;
}

std::string LoopSession::ParameterFingerprint() const {
  if (!s_->latest.net) return FingerprintOf("");
  std::string bytes;
  PutVec(&bytes, s_->latest.net->parameters());
  PutVec(&bytes, s_->latest.net->bn_statistics());
  return FingerprintOf(bytes);
}

}  // namespace podbench::minigo
