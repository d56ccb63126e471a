// MiniGo's Monte Carlo tree search as MLPerf v0.6 self-play ran it, with the
// network behind an Evaluator that takes the leaves of MANY games in one call.
//
// Sources (read, not copied): tensorflow/minigo at 8bc6373, the flag set of
// MLPerf v0.6 (../shared/reference/minigo-v0.6.md): cc/mcts_node.{h,cc},
// cc/mcts_player.{h,cc}, cc/selfplay.cc, cc/constants.h,
// ml_perf/flags/9/selfplay.flags, and the Python mcts.py / strategies.py that
// the C++ engine mirrors. MctsOptions cites each default.
//
// The search, per move (cc/mcts_player.cc:133-186 SuggestMove):
//   1. If the root was never evaluated, it alone is evaluated first.
//   2. Dirichlet noise (alpha 0.03*361/81, normalised over the legal moves)
//      is mixed into the root's priors with weight noise_mix.
//   3. Readouts run until the root has num_readouts more visits than when
//      the noise went in. Each tree-search step selects up to
//      virtual_losses leaves, one after the other, by PUCT:
//        score(a) = Q(a) * sign(to_play) + U_scale * sqrt(max(1, N - 1))
//                   * P(a) / (1 + N(a)) - 1000 * illegal(a),
//        U_scale = 2 * (log((1 + N + c_puct_base) / c_puct_base) + c_puct_init),
//        Q(a) = W(a) / (1 + N(a)), N the node's own visits,
//      the first maximum winning ties; after a pass, the pass reply is tried
//      first. Each selected leaf gets a virtual loss along its path (W moves
//      one unit against the player who chose each edge), so the next
//      selection of the same step avoids it. A leaf at game end (two passes,
//      or move 162) is not evaluated: +1 or -1 by its area score is backed
//      up at once. A step tries at most 2 * virtual_losses selections.
//   4. The selected leaves are evaluated (with a random board symmetry each,
//      undone on the policy); each expands with the policy renormalised over
//      its legal moves, every child's W starting at the leaf's value minus
//      value_init_penalty for the player to move (clamped to [-1, 1]); the
//      value is backed up to the root and the virtual loss removed. A leaf
//      selected twice in a step expands once; its duplicate backs up nothing.
//   5. The player resigns if resignation is enabled for its game and the
//      root's Q from its own side is below resign_threshold; otherwise it
//      picks, before move softpick_move_cutoff, a point (never pass) at
//      random with probability proportional to N^0.98, and from then on the
//      most visited move (ties broken by the action score).
// Values are in [-1, 1] from BLACK's side throughout (the network's value
// head too; cc/mcts_node.cc:303).
//
// Batching across games: a player never calls the evaluator itself.
// SelectLeaves appends its leaves' features to a caller-owned batch and
// ProcessResults takes their slice of the outputs, so SearchStep can gather
// the leaves of every game into ONE Evaluator call of up to
// games x virtual_losses positions (cc/selfplay.cc parallel_games).
//
// Randomness (noise, symmetries, soft-pick) comes from the player's seed
// alone, so a seed and an evaluator fix a game exactly.
//
// Threads: a player shares nothing with other players, so different players
// may search on different threads; one player, and one Evaluator call, is
// for one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "workloads/minigo/go/board.h"
#include "workloads/minigo/go/features.h"
#include "workloads/minigo/go/random.h"

namespace podbench::minigo {

// The move code of a resignation (not a board move).
inline constexpr int kResign = -2;

struct MctsOptions {
  // selfplay.flags:7 --num_readouts=240 (v0.6). Readouts per move.
  int num_readouts = 240;
  // selfplay.flags:15 --virtual_losses=8. Leaves per game per search step.
  int virtual_losses = 8;
  // cc/constants.h:38 kUct_base; mcts.py:34 c_puct_base.
  float c_puct_base = 19652.0f;
  // cc/constants.h:39 kUct_init; mcts.py:37 c_puct_init.
  float c_puct_init = 1.25f;
  // cc/constants.h:35 kDirichletAlpha = 0.03 * 361 / (N * N); mcts.py:40.
  float dirichlet_alpha = 0.03f * 361.0f / (kN * kN);
  // cc/selfplay.cc:69 --noise_mix default 0.25 (selfplay.flags leaves it);
  // mcts.py:44 dirichlet_noise_weight.
  float noise_mix = 0.25f;
  // cc/selfplay.cc:66 --inject_noise default true.
  bool inject_noise = true;
  // selfplay.flags:8 --value_init_penalty=0.2.
  float value_init_penalty = 0.2f;
  // cc/selfplay.cc:76 --random_symmetry default true.
  bool random_symmetry = true;
  // cc/selfplay.cc:72 --soft_pick default true.
  bool soft_pick = true;
  // cc/mcts_player.cc:83 and strategies.py:29: (N*N/12)/2*2 = 6 on 9x9.
  int softpick_move_cutoff = (kN * kN / 12) / 2 * 2;
  // cc/selfplay.cc:85 --policy_softmax_temp default 0.98 (the soft-pick
  // exponent, cc/mcts_player.cc:205).
  float policy_softmax_temp = 0.98f;
  // selfplay.flags:11 --resign_threshold=-0.99 (made negative,
  // cc/selfplay.cc:147).
  float resign_threshold = -0.99f;
  // selfplay.flags:10 --disable_resign_pct=0.1 (cc/selfplay.cc:277: a game
  // resigns iff its uniform draw >= this).
  float disable_resign_pct = 0.1f;
  // cc/constants.h:33 kDefaultKomi.
  float komi = kDefaultKomi;

  // Each out-of-range field is an InvalidArgument naming it and its value.
  Status Validate() const;
};

// The network. `features` holds `batch` positions of kFeatureSize floats
// ([batch, 9, 9, 17], NHWC, features.h); the evaluator writes `batch` x 82
// move probabilities into `policy` (illegal moves may be non-zero; the search
// renormalises) and `batch` values in [-1, 1] from black's side into `value`.
// A non-OK status stops the search and is returned to its caller.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual Status Evaluate(std::span<const float> features, int batch, std::span<float> policy,
                          std::span<float> value) = 0;
};

// The size check every Evaluator makes first: OK when `batch` >= 1 and the
// spans hold batch positions, batch x 82 and batch floats; otherwise an
// InvalidArgument that starts with `who` and names the sizes.
Status CheckEvaluatorSizes(std::string_view who, std::span<const float> features, int batch,
                           std::span<const float> policy, std::span<const float> value);

// Visit statistics of the edge into a node (cc/mcts_node.h EdgeStats).
struct EdgeStats {
  float N = 0;
  float W = 0;
  float P = 0;
  float original_P = 0;  // the prior before root noise
};

class MctsNode {
 public:
  // The root of a tree; `stats` holds its own visits and, like `options`
  // (which sets c_puct), outlives it.
  MctsNode(EdgeStats* stats, const Position& position, const MctsOptions* options);
  // The child reached by `move`. REQUIRES: parent->position.IsLegal(move).
  MctsNode(MctsNode* parent, int move);

  float N() const { return stats->N; }
  float W() const { return stats->W; }
  float Q() const { return stats->W / (1 + stats->N); }
  // Q from the side of the player to move here.
  float QPerspective() const { return Q() * Sign(position.to_play()); }
  float child_N(int m) const { return edges[m].N; }
  float child_Q(int m) const { return edges[m].W / (1 + edges[m].N); }
  float child_P(int m) const { return edges[m].P; }
  float UScale() const;
  float ActionScore(int m, float u_common) const;

  MctsNode* MaybeAddChild(int move);
  MctsNode* FindChild(int move) const;
  // The most visited move; ties go to the higher action score.
  int MostVisitedMove() const;

  const MctsOptions* options = nullptr;
  MctsNode* parent = nullptr;
  EdgeStats* stats = nullptr;
  int move = kNoPoint;  // the move that led here; kNoPoint at a game root
  Position position;
  PointSet legal;  // legal moves of `position`, pass included
  bool expanded = false;
  int virtual_losses_applied = 0;
  std::array<EdgeStats, kNumMoves> edges{};
  std::vector<std::pair<int, std::unique_ptr<MctsNode>>> children;
};

// One game's search and move choice. Create with the game's seed and
// whether resignation is enabled for it (PlaySelfPlayGames draws that).
class MctsPlayer {
 public:
  // REQUIRES: options.Validate().ok().
  MctsPlayer(const MctsOptions& options, uint64_t seed, bool resign_enabled,
             const Position& start = Position());
  // The tree points into the player: neither copied nor moved.
  MctsPlayer(const MctsPlayer&) = delete;
  MctsPlayer& operator=(const MctsPlayer&) = delete;

  const Position& position() const { return root_->position; }
  const MctsNode& root() const { return *root_; }
  const MctsOptions& options() const { return options_; }
  bool resign_enabled() const { return resign_enabled_; }
  // The game ended by two passes, the move limit, or a resignation.
  bool game_over() const { return resigned_ || root_->position.IsTerminal(); }

  // Readouts for the next move: call SelectLeaves / ProcessResults until
  // SearchDone(). REQUIRES: !game_over().
  void StartSearch();
  bool SearchDone() const;
  // Appends up to virtual_losses leaves (one while the root is unexpanded)
  // to `features`, kFeatureSize floats each, and returns how many. Leaves at
  // game end are backed up here and not appended. REQUIRES: a search started,
  // and the previous batch processed.
  int SelectLeaves(std::vector<float>* features);
  // Takes the outputs for the leaves the last SelectLeaves appended, in
  // order: policy holds 82 floats per leaf, value one. REQUIRES: sizes match.
  void ProcessResults(std::span<const float> policy, std::span<const float> value);
  // After SearchDone(): kResign, or the move to play (temperature rules).
  int ChooseMove();
  // Plays `move` (this player's choice, an opponent's, or kResign), keeping
  // the subtree below it. A root search records its visit distribution first
  // (search_pi). An illegal move is an InvalidArgument naming it.
  Status PlayMove(int move);

  // The game's record. search_pi[i] is the root's visit distribution before
  // move i (squashed by policy_softmax_temp before the cutoff,
  // cc/mcts_player.cc:339-357); root_q[i] the root's Q then (black's side).
  const std::vector<int>& moves() const { return moves_; }
  const std::vector<std::array<float, kNumMoves>>& search_pi() const { return search_pi_; }
  const std::vector<float>& root_q() const { return root_q_; }
  // +1 black won, -1 white won; REQUIRES: game_over().
  int Winner() const;
  bool resigned() const { return resigned_; }

 private:
  void InjectNoise();
  MctsNode* SelectLeaf();
  void BackupValue(MctsNode* leaf, float value);
  void AddVirtualLoss(MctsNode* leaf);
  void RevertVirtualLoss(MctsNode* leaf);
  void Expand(MctsNode* leaf, const float* policy, float value);

  MctsOptions options_;
  Rng rng_;
  bool resign_enabled_;
  EdgeStats root_stats_;
  std::unique_ptr<MctsNode> game_root_;
  MctsNode* root_;
  bool searching_ = false;
  bool noise_done_ = false;
  float target_readouts_ = 0;
  bool resigned_ = false;
  Color resigned_by_ = Color::kEmpty;
  std::vector<MctsNode*> pending_;   // leaves of the last SelectLeaves
  std::vector<int> pending_symmetry_;
  std::vector<int> moves_;
  std::vector<std::array<float, kNumMoves>> search_pi_;
  std::vector<float> root_q_;
};

// Counters of the batched search.
struct SearchStats {
  int64_t evaluator_calls = 0;
  int64_t positions_evaluated = 0;
};

// One batched step: every player in `players` whose search is not done
// selects its leaves, all of them go to `evaluator` in one call, and each
// player takes its results. Players that selected none are skipped. Errors:
// the evaluator's status, or an output that is not finite or a negative
// probability (InvalidArgument naming the position in the batch); the
// players are then mid-step and should be dropped.
Status SearchStep(std::span<MctsPlayer* const> players, Evaluator& evaluator, SearchStats* stats = nullptr);
// Runs every player's current search to the end with SearchStep. Each
// player must have StartSearch()ed.
Status RunSearches(std::span<MctsPlayer* const> players, Evaluator& evaluator, SearchStats* stats = nullptr);

struct SelfPlayGame {
  std::vector<int> moves;  // kResign last if the loser resigned
  std::vector<std::array<float, kNumMoves>> search_pi;
  std::vector<float> root_q;
  int winner = 0;       // +1 black, -1 white
  float score = 0;      // black's area score minus komi at the end (0 after a resignation)
  bool resigned = false;
  bool resign_enabled = true;
};

// Plays `num_games` self-play games, `parallel_games` at a time, each step's
// leaves of all running games in one evaluator call (at most parallel_games x
// virtual_losses positions). Game g draws its seed and its resignation switch
// (enabled iff a uniform draw >= disable_resign_pct) from (seed, g), so the
// result is a function of the arguments. Errors: bad options or counts
// (InvalidArgument naming them), or the evaluator's status.
Result<std::vector<SelfPlayGame>> PlaySelfPlayGames(const MctsOptions& options, int num_games, int parallel_games,
                                                    uint64_t seed, Evaluator& evaluator,
                                                    SearchStats* stats = nullptr);
// The games `game_indices` of such a run (each seeded from (seed, index) as
// game `index` above, so any split of the indices over callers plays the
// same games), `parallel_games` at a time; result i is game_indices[i].
// Errors as above, and a negative index (InvalidArgument).
Result<std::vector<SelfPlayGame>> PlaySelfPlayGames(const MctsOptions& options, std::span<const int> game_indices,
                                                    int parallel_games, uint64_t seed, Evaluator& evaluator,
                                                    SearchStats* stats = nullptr);

}  // namespace podbench::minigo
