#include "workloads/minigo/go/mcts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace podbench::minigo {
namespace {

Status Bad(const char* field, const std::string& value, const char* rule) {
  return Status::InvalidArgument(std::string("MCTS option ") + field + " = " + value + ": " + rule);
}

// A per-game seed from the run's seed and the game's index.
uint64_t GameSeed(uint64_t seed, int game) {
  Rng r(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(game + 1)));
  return r.Next();
}

}  // namespace

Status MctsOptions::Validate() const {
  if (num_readouts < 1) return Bad("num_readouts", std::to_string(num_readouts), "must be >= 1");
  if (virtual_losses < 1) return Bad("virtual_losses", std::to_string(virtual_losses), "must be >= 1");
  if (!(c_puct_base > 0)) return Bad("c_puct_base", std::to_string(c_puct_base), "must be > 0");
  if (!(c_puct_init >= 0)) return Bad("c_puct_init", std::to_string(c_puct_init), "must be >= 0");
  if (!(dirichlet_alpha > 0)) return Bad("dirichlet_alpha", std::to_string(dirichlet_alpha), "must be > 0");
  if (!(noise_mix >= 0 && noise_mix < 1)) return Bad("noise_mix", std::to_string(noise_mix), "must be in [0, 1)");
  if (!(value_init_penalty >= 0 && value_init_penalty <= 2)) {
    return Bad("value_init_penalty", std::to_string(value_init_penalty), "must be in [0, 2]");
  }
  if (softpick_move_cutoff < 0 || softpick_move_cutoff % 2 != 0) {
    return Bad("softpick_move_cutoff", std::to_string(softpick_move_cutoff),
               "must be even and >= 0 (both colours soft-pick alike, strategies.py:32)");
  }
  if (!(policy_softmax_temp > 0)) {
    return Bad("policy_softmax_temp", std::to_string(policy_softmax_temp), "must be > 0");
  }
  if (!(resign_threshold >= -1 && resign_threshold < 0)) {
    return Bad("resign_threshold", std::to_string(resign_threshold), "must be in [-1, 0) (strategies.py:37)");
  }
  if (!(disable_resign_pct >= 0 && disable_resign_pct <= 1)) {
    return Bad("disable_resign_pct", std::to_string(disable_resign_pct), "must be in [0, 1]");
  }
  if (!std::isfinite(komi)) return Bad("komi", std::to_string(komi), "must be finite");
  return Status::Ok();
}

// ---- MctsNode ----

MctsNode::MctsNode(EdgeStats* s, const Position& pos, const MctsOptions* o)
    : options(o), stats(s), position(pos), legal(pos.LegalMoves()) {}

MctsNode::MctsNode(MctsNode* p, int m)
    : options(p->options), parent(p), stats(&p->edges[m]), move(m), position(p->position) {
  position.PlayLegal(m);
  legal = position.LegalMoves();
}

float MctsNode::UScale() const {
  // cc/mcts_node.h:78-80; mcts.py:108-112.
  const float base = options->c_puct_base;
  return 2.0f * (std::log((1.0f + N() + base) / base) + options->c_puct_init);
}

float MctsNode::ActionScore(int m, float u_common) const {
  return child_Q(m) * Sign(position.to_play()) + u_common * edges[m].P / (1 + edges[m].N) -
         (legal.test(m) ? 0.0f : 1000.0f);
}

MctsNode* MctsNode::FindChild(int m) const {
  for (const auto& [cm, child] : children)
    if (cm == m) return child.get();
  return nullptr;
}

MctsNode* MctsNode::MaybeAddChild(int m) {
  if (MctsNode* c = FindChild(m)) return c;
  children.emplace_back(m, std::make_unique<MctsNode>(this, m));
  return children.back().second.get();
}

int MctsNode::MostVisitedMove() const {
  float best_n = -1;
  for (int m = 0; m < kNumMoves; ++m) best_n = std::max(best_n, edges[m].N);
  // cc/mcts_node.cc:91-130: among the most visited, the best action score,
  // with U's common factor taken as U_scale * sqrt(1 + N).
  const float u_common = UScale() * std::sqrt(1.0f + N());
  int best = -1;
  float best_score = 0;
  for (int m = 0; m < kNumMoves; ++m) {
    if (edges[m].N != best_n) continue;
    const float s = ActionScore(m, u_common);
    if (best < 0 || s > best_score) {
      best = m;
      best_score = s;
    }
  }
  return best;
}

// ---- MctsPlayer ----

MctsPlayer::MctsPlayer(const MctsOptions& options, uint64_t seed, bool resign_enabled, const Position& start)
    : options_(options),
      rng_(seed),
      resign_enabled_(resign_enabled),
      game_root_(std::make_unique<MctsNode>(&root_stats_, start, &options_)),
      root_(game_root_.get()) {}

void MctsPlayer::StartSearch() {
  searching_ = true;
  noise_done_ = false;
  target_readouts_ = 0;
  pending_.clear();
}

bool MctsPlayer::SearchDone() const { return searching_ && noise_done_ && root_->N() >= target_readouts_; }

void MctsPlayer::InjectNoise() {
  // cc/mcts_node.cc:237-257: noise renormalised over the legal moves.
  std::array<float, kNumMoves> noise;
  rng_.Dirichlet(options_.dirichlet_alpha, noise);
  float sum = 0;
  for (int m = 0; m < kNumMoves; ++m)
    if (root_->legal.test(m)) sum += noise[m];
  const float scale = sum > std::numeric_limits<float>::min() ? 1.0f / sum : sum;
  for (int m = 0; m < kNumMoves; ++m) {
    const float n = root_->legal.test(m) ? noise[m] * scale : 0.0f;
    root_->edges[m].P = (1 - options_.noise_mix) * root_->edges[m].P + options_.noise_mix * n;
  }
}

MctsNode* MctsPlayer::SelectLeaf() {
  MctsNode* node = root_;
  for (;;) {
    if (!node->expanded) return node;
    // cc/mcts_node.cc:266-271: after a pass, try the pass reply first.
    if (node->move == kPass && node->child_N(kPass) == 0) {
      node = node->MaybeAddChild(kPass);
      continue;
    }
    const float u_common = node->UScale() * std::sqrt(std::max(1.0f, node->N() - 1));
    int best = 0;
    float best_score = node->ActionScore(0, u_common);
    for (int m = 1; m < kNumMoves; ++m) {
      const float s = node->ActionScore(m, u_common);
      if (s > best_score) {
        best = m;
        best_score = s;
      }
    }
    node = node->MaybeAddChild(best);
  }
}

void MctsPlayer::BackupValue(MctsNode* leaf, float value) {
  for (MctsNode* n = leaf;; n = n->parent) {
    n->stats->W += value;
    n->stats->N += 1;
    if (n == root_) return;
  }
}

void MctsPlayer::AddVirtualLoss(MctsNode* leaf) {
  for (MctsNode* n = leaf;; n = n->parent) {
    ++n->virtual_losses_applied;
    n->stats->W += Sign(n->position.to_play());
    if (n == root_) return;
  }
}

void MctsPlayer::RevertVirtualLoss(MctsNode* leaf) {
  for (MctsNode* n = leaf;; n = n->parent) {
    --n->virtual_losses_applied;
    n->stats->W -= Sign(n->position.to_play());
    if (n == root_) return;
  }
}

int MctsPlayer::SelectLeaves(std::vector<float>* features) {
  pending_.clear();
  pending_symmetry_.clear();
  int want = options_.virtual_losses;
  if (!root_->expanded) {
    want = 1;  // cc/mcts_player.cc:140-144
  } else if (!noise_done_) {
    if (options_.inject_noise) InjectNoise();
    noise_done_ = true;
    target_readouts_ = root_->N() + static_cast<float>(options_.num_readouts);
  }
  // cc/mcts_player.cc:233-251.
  for (int i = 0; i < 2 * want && static_cast<int>(pending_.size()) < want; ++i) {
    MctsNode* leaf = SelectLeaf();
    if (leaf->position.IsTerminal()) {
      BackupValue(leaf, leaf->position.Score(options_.komi) > 0 ? 1.0f : -1.0f);
      continue;
    }
    AddVirtualLoss(leaf);
    pending_.push_back(leaf);
  }
  // The features of each leaf, from its last 8 positions, under a symmetry.
  std::array<const Position*, kHistory> history;
  std::array<float, kFeatureSize> raw;
  for (MctsNode* leaf : pending_) {
    int h = 0;
    for (const MctsNode* n = leaf; n != nullptr && h < kHistory; n = n->parent) history[h++] = &n->position;
    const int s = options_.random_symmetry ? rng_.UniformInt(kNumSymmetries) : 0;
    pending_symmetry_.push_back(s);
    const size_t at = features->size();
    features->resize(at + kFeatureSize);
    if (s == 0) {
      ExtractFeaturesUnchecked(std::span(history.data(), h), features->data() + at);
    } else {
      ExtractFeaturesUnchecked(std::span(history.data(), h), raw.data());
      ApplySymmetryToFeatures(s, raw.data(), features->data() + at);
    }
  }
  return static_cast<int>(pending_.size());
}

void MctsPlayer::Expand(MctsNode* leaf, const float* policy, float value) {
  // cc/mcts_node.cc:279-351.
  if (leaf->expanded) return;
  float sum = 0;
  for (int m = 0; m < kNumMoves; ++m)
    if (leaf->legal.test(m)) sum += policy[m];
  const float scale = sum > std::numeric_limits<float>::min() ? 1.0f / sum : sum;
  const float reduced =
      std::clamp(value - options_.value_init_penalty * Sign(leaf->position.to_play()), -1.0f, 1.0f);
  leaf->expanded = true;
  for (int m = 0; m < kNumMoves; ++m) {
    const float p = leaf->legal.test(m) ? policy[m] * scale : 0.0f;
    leaf->edges[m].P = leaf->edges[m].original_P = p;
    leaf->edges[m].W += reduced;
  }
  BackupValue(leaf, value);
}

void MctsPlayer::ProcessResults(std::span<const float> policy, std::span<const float> value) {
  std::array<float, kNumMoves> raw;
  for (size_t i = 0; i < pending_.size(); ++i) {
    const float* p = policy.data() + i * kNumMoves;
    if (pending_symmetry_[i] != 0) {
      ApplySymmetryToPolicy(InverseSymmetry(pending_symmetry_[i]), p, raw.data());
      p = raw.data();
    }
    RevertVirtualLoss(pending_[i]);
    Expand(pending_[i], p, std::clamp(value[i], -1.0f, 1.0f));
  }
  pending_.clear();
  pending_symmetry_.clear();
}

int MctsPlayer::ChooseMove() {
  // cc/mcts_player.cc:253-256.
  if (resign_enabled_ && root_->QPerspective() < options_.resign_threshold) return kResign;
  const int cutoff = options_.soft_pick ? options_.softpick_move_cutoff : -1;
  if (root_->position.move_number() >= cutoff) return root_->MostVisitedMove();
  // cc/mcts_player.cc:197-224: points only, weights N^temp.
  std::array<float, kNumPoints> cdf;
  float total = 0;
  for (int m = 0; m < kNumPoints; ++m) {
    total += std::pow(root_->child_N(m), options_.policy_softmax_temp);
    cdf[m] = total;
  }
  if (total == 0) return kPass;
  const float x = rng_.Uniform() * total;
  int m = static_cast<int>(std::lower_bound(cdf.begin(), cdf.end(), x) - cdf.begin());
  while (m < kNumPoints - 1 && root_->child_N(m) == 0) ++m;  // x == 0 lands on a zero-weight prefix
  return std::min(m, kNumPoints - 1);
}

Status MctsPlayer::PlayMove(int move) {
  if (game_over()) return Status::FailedPrecondition("move " + GtpMove(move) + ": the game is over");
  if (move == kResign) {
    resigned_ = true;
    resigned_by_ = root_->position.to_play();
    moves_.push_back(kResign);
    searching_ = false;
    return Status::Ok();
  }
  if (move < 0 || move > kPass || !root_->position.IsLegal(move)) {
    Status st = Position(root_->position).Play(move);  // the reason, named
    return st.ok() ? Status::Internal("move " + GtpMove(move) + " rejected") : st;
  }
  if (searching_ && root_->N() > 0) {
    // cc/mcts_player.cc:339-357.
    std::array<float, kNumMoves> pi;
    const bool squash = root_->position.move_number() < (options_.soft_pick ? options_.softpick_move_cutoff : -1);
    float sum = 0;
    for (int m = 0; m < kNumMoves; ++m) {
      pi[m] = squash ? std::pow(root_->child_N(m), options_.policy_softmax_temp) : root_->child_N(m);
      sum += pi[m];
    }
    for (float& v : pi) v = sum > 0 ? v / sum : 0.0f;
    search_pi_.push_back(pi);
    root_q_.push_back(root_->Q());
  }
  moves_.push_back(move);
  MctsNode* next = root_->MaybeAddChild(move);
  // Keep only the played line: the path to the game root stays (the
  // features read 7 positions back), siblings go (cc/mcts_node.cc:395-399).
  for (auto& [m, child] : root_->children)
    if (m != move) child.reset();
  std::erase_if(root_->children, [](const auto& c) { return c.second == nullptr; });
  root_ = next;
  searching_ = false;
  return Status::Ok();
}

int MctsPlayer::Winner() const {
  if (resigned_) return resigned_by_ == Color::kBlack ? -1 : 1;
  return root_->position.Score(options_.komi) > 0 ? 1 : -1;
}

// ---- batched driving ----

namespace {

struct Batch {
  std::vector<float> features;
  std::vector<float> policy;
  std::vector<float> value;
  std::vector<std::pair<MctsPlayer*, int>> owners;  // player, leaf count
};

Status Step(std::span<MctsPlayer* const> players, Evaluator& evaluator, Batch* b, SearchStats* stats) {
  b->features.clear();
  b->owners.clear();
  int total = 0;
  for (MctsPlayer* p : players) {
    if (p->SearchDone()) continue;
    const int n = p->SelectLeaves(&b->features);
    if (n > 0) b->owners.emplace_back(p, n);
    total += n;
  }
  if (total == 0) return Status::Ok();
  b->policy.assign(static_cast<size_t>(total) * kNumMoves, 0.0f);
  b->value.assign(static_cast<size_t>(total), 0.0f);
  Status st = evaluator.Evaluate(b->features, total, b->policy, b->value);
  if (!st.ok()) return st.WithContext("MCTS leaf evaluation of " + std::to_string(total) + " positions");
  // A broken network must not poison the trees: NaN, infinite or negative
  // outputs are an error naming the first such position.
  for (int i = 0; i < total; ++i) {
    bool bad = !std::isfinite(b->value[static_cast<size_t>(i)]);
    for (int m = 0; m < kNumMoves && !bad; ++m) {
      const float x = b->policy[static_cast<size_t>(i) * kNumMoves + static_cast<size_t>(m)];
      bad = !std::isfinite(x) || x < 0;
    }
    if (bad) {
      return Status::InvalidArgument("MCTS leaf evaluation: the evaluator's output for position " +
                                     std::to_string(i) + " of " + std::to_string(total) +
                                     " holds a NaN, an infinity or a negative probability");
    }
  }
  if (stats != nullptr) {
    ++stats->evaluator_calls;
    stats->positions_evaluated += total;
  }
  size_t at = 0;
  for (auto& [p, n] : b->owners) {
    p->ProcessResults(std::span(b->policy).subspan(at * kNumMoves, static_cast<size_t>(n) * kNumMoves),
                      std::span(b->value).subspan(at, static_cast<size_t>(n)));
    at += static_cast<size_t>(n);
  }
  return Status::Ok();
}

}  // namespace

Status SearchStep(std::span<MctsPlayer* const> players, Evaluator& evaluator, SearchStats* stats) {
  Batch b;
  return Step(players, evaluator, &b, stats);
}

Status RunSearches(std::span<MctsPlayer* const> players, Evaluator& evaluator, SearchStats* stats) {
  Batch b;
  for (;;) {
    bool all_done = true;
    for (MctsPlayer* p : players) all_done &= p->SearchDone();
    if (all_done) return Status::Ok();
    PODBENCH_RETURN_IF_ERROR(Step(players, evaluator, &b, stats));
  }
}

Status CheckEvaluatorSizes(std::string_view who, std::span<const float> features, int batch,
                           std::span<const float> policy, std::span<const float> value) {
  const size_t n = static_cast<size_t>(std::max(batch, 0));
  if (batch < 1 || features.size() != n * kFeatureSize || policy.size() != n * kNumMoves || value.size() != n) {
    return Status::InvalidArgument(std::string(who) + ": batch " + std::to_string(batch) + " with " +
                                   std::to_string(features.size()) + " feature floats, " +
                                   std::to_string(policy.size()) + " policy floats and " +
                                   std::to_string(value.size()) + " values do not match");
  }
  return Status::Ok();
}

Result<std::vector<SelfPlayGame>> PlaySelfPlayGames(const MctsOptions& options, int num_games, int parallel_games,
                                                    uint64_t seed, Evaluator& evaluator, SearchStats* stats) {
  if (num_games < 0) return Status::InvalidArgument("self-play num_games = " + std::to_string(num_games) + ": must be >= 0");
  std::vector<int> all(static_cast<size_t>(num_games));
  for (int g = 0; g < num_games; ++g) all[static_cast<size_t>(g)] = g;
  return PlaySelfPlayGames(options, all, parallel_games, seed, evaluator, stats);
}

Result<std::vector<SelfPlayGame>> PlaySelfPlayGames(const MctsOptions& options, std::span<const int> game_indices,
                                                    int parallel_games, uint64_t seed, Evaluator& evaluator,
                                                    SearchStats* stats) {
  PODBENCH_RETURN_IF_ERROR(options.Validate());
  if (parallel_games < 1) {
    return Status::InvalidArgument("self-play parallel_games = " + std::to_string(parallel_games) + ": must be >= 1");
  }
  for (int g : game_indices) {
    if (g < 0) return Status::InvalidArgument("self-play game index " + std::to_string(g) + ": must be >= 0");
  }
  const int num_games = static_cast<int>(game_indices.size());
  std::vector<SelfPlayGame> games(static_cast<size_t>(num_games));
  std::vector<std::unique_ptr<MctsPlayer>> slots(static_cast<size_t>(std::min(parallel_games, num_games)));
  std::vector<int> slot_game(slots.size(), -1);
  int next_game = 0;
  auto start_game = [&](size_t s) {
    if (next_game >= num_games) {
      slots[s].reset();
      return;
    }
    const int g = next_game++;
    Rng game_rng(GameSeed(seed, game_indices[static_cast<size_t>(g)]));
    // cc/selfplay.cc:277.
    const bool resign_enabled = game_rng.Uniform() >= options.disable_resign_pct;
    slots[s] = std::make_unique<MctsPlayer>(options, game_rng.Next(), resign_enabled);
    slot_game[s] = g;
    slots[s]->StartSearch();
  };
  for (size_t s = 0; s < slots.size(); ++s) start_game(s);

  Batch b;
  std::vector<MctsPlayer*> active;
  for (;;) {
    active.clear();
    for (auto& p : slots)
      if (p) active.push_back(p.get());
    if (active.empty()) break;
    PODBENCH_RETURN_IF_ERROR(Step(active, evaluator, &b, stats));
    for (size_t s = 0; s < slots.size(); ++s) {
      MctsPlayer* p = slots[s].get();
      if (p == nullptr || !p->SearchDone()) continue;
      PODBENCH_RETURN_IF_ERROR(p->PlayMove(p->ChooseMove()));
      if (!p->game_over()) {
        p->StartSearch();
        continue;
      }
      SelfPlayGame& g = games[static_cast<size_t>(slot_game[s])];
      g.moves = p->moves();
      g.search_pi = p->search_pi();
      g.root_q = p->root_q();
      g.winner = p->Winner();
      g.resigned = p->resigned();
      g.score = g.resigned ? 0.0f : p->position().Score(options.komi);
      g.resign_enabled = p->resign_enabled();
      start_game(s);
    }
  }
  return games;
}

}  // namespace podbench::minigo
