// The 9x9 Go rules as MiniGo v0.6 plays them: a Position, its legal moves,
// captures, simple ko, no suicide, pass and game end, and area
// (Tromp-Taylor) scoring with komi 7.5.
//
// Sources (read, not copied): tensorflow/minigo at 8bc6373 (2019-04-02, the
// flag set MLPerf v0.6 ran; ../shared/reference/minigo-v0.6.md): go.py,
// coords.py, cc/constants.h, cc/position.cc.
//
// What a Position guarantees:
//   - A move is legal iff it is a pass, or it is on an empty point, is not
//     the ko point, and is not suicide (after its captures the played stone's
//     group has a liberty). go.py:384-395 (is_move_legal), go.py:366-382.
//   - Ko is simple ko as go.py:465-489 defines it: a move that captures
//     exactly one stone, played on a point whose every on-board neighbour was
//     an opponent stone, makes the captured point the ko point for the next
//     move only; any other move, and a pass (go.py:434), clears it.
//     MiniGo's C++ engine additionally forbids repeating a position reached
//     inside its search tree (positional superko, cc/mcts_node.cc:31-51);
//     podbench plays simple ko only, as go.py does.
//   - The game ends after two consecutive passes (go.py:500-503) or when
//     kMaxGameLength moves have been played (mcts.py:31, cc/constants.h:31).
//   - Score() is area scoring from black's side: black stones plus empty
//     regions that reach only black, minus the same for white, minus komi
//     (go.py:505-523). Regions that reach both colours (dame, seki eyes)
//     count for neither.
// Points are flat indices row * 9 + col with row 0 the top row (coords.py
// from_flat/to_flat); kPass = 81. The GTP name of a point has its column
// letter from "ABCDEFGHJ" (no I) and its row number counted from the bottom
// (coords.py to_gtp).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace podbench::minigo {

inline constexpr int kN = 9;                    // board side (9x9 flags)
inline constexpr int kNumPoints = kN * kN;      // 81
inline constexpr int kNumMoves = kNumPoints + 1;  // 81 points + pass
inline constexpr int kPass = kNumPoints;        // coords.py: flat N*N is pass
inline constexpr int kNoPoint = -1;
// cc/constants.h:33 kDefaultKomi; go.py:288 Position(komi=7.5).
inline constexpr float kDefaultKomi = 7.5f;
// cc/constants.h:31 kMaxSearchDepth = N*N*2; mcts.py:31 max_game_length.
inline constexpr int kMaxGameLength = kNumPoints * 2;  // 162

enum class Color : int8_t { kEmpty = 0, kBlack = 1, kWhite = 2 };
constexpr Color Opponent(Color c) { return c == Color::kBlack ? Color::kWhite : Color::kBlack; }
// +1 for black, -1 for white: MiniGo's sign of a value from black's side.
constexpr float Sign(Color c) { return c == Color::kBlack ? 1.0f : -1.0f; }

// A set of board points (and, in legal-move masks, bit 81 for pass).
class PointSet {
 public:
  constexpr bool test(int p) const { return (w_[p >> 6] >> (p & 63)) & 1u; }
  constexpr void set(int p) { w_[p >> 6] |= uint64_t{1} << (p & 63); }
  constexpr void reset(int p) { w_[p >> 6] &= ~(uint64_t{1} << (p & 63)); }
  constexpr int count() const { return std::popcount(w_[0]) + std::popcount(w_[1]); }
  constexpr bool empty() const { return (w_[0] | w_[1]) == 0; }
  constexpr PointSet& operator|=(const PointSet& o) { w_[0] |= o.w_[0]; w_[1] |= o.w_[1]; return *this; }
  constexpr bool operator==(const PointSet&) const = default;
  // Calls f(p) for each member in increasing order.
  template <typename F>
  constexpr void ForEach(F&& f) const {
    for (int w = 0; w < 2; ++w)
      for (uint64_t b = w_[w]; b != 0; b &= b - 1) f(w * 64 + std::countr_zero(b));
  }

 private:
  uint64_t w_[2] = {0, 0};
};

// The on-board neighbours of each point (go.py NEIGHBORS).
struct Neighbours {
  std::array<int8_t, 4> p{};
  int8_t n = 0;
};
const std::array<Neighbours, kNumPoints>& NeighbourTable();

class Position {
 public:
  // The empty board, black to play, no moves played.
  Position() = default;

  // A position from a diagram of 9 rows of 9 points, top row first: 'X' or
  // 'x' black, 'O' or 'o' white, '.' or '+' empty; spaces are ignored and
  // rows are separated by newlines. The diagram must not hold a group
  // without liberties. `to_play` moves next; move_number() is 0 and there is
  // no ko and no pass before it. Errors name the row and column.
  static Result<Position> FromDiagram(std::string_view diagram, Color to_play = Color::kBlack);

  Color at(int p) const { return static_cast<Color>(board_[p]); }
  Color to_play() const { return to_play_; }
  int move_number() const { return n_; }          // moves played, passes included
  int ko() const { return ko_; }                  // the ko point, or kNoPoint
  int consecutive_passes() const { return passes_; }
  int captures(Color by) const { return by == Color::kBlack ? caps_[0] : caps_[1]; }
  // Two consecutive passes (go.py:500-503).
  bool IsGameOver() const { return passes_ >= 2; }
  // The move limit (cc/mcts_node.h at_move_limit).
  bool AtMoveLimit() const { return n_ >= kMaxGameLength; }
  bool IsTerminal() const { return IsGameOver() || AtMoveLimit(); }

  // REQUIRES: 0 <= move <= kPass.
  bool IsLegal(int move) const;
  // Bit m set iff move m (0..81) is legal; pass is always legal.
  PointSet LegalMoves() const;
  // The legal board points (pass excluded), in increasing order, into
  // `points`; returns how many.
  int LegalPoints(std::array<int8_t, kNumPoints>* points) const;

  // Plays `move` for to_play(). An out-of-range or illegal move is an
  // InvalidArgument naming it (GTP name) and why; the position is unchanged.
  Status Play(int move);
  // REQUIRES: IsLegal(move). The search's hot path.
  void PlayLegal(int move);

  // Liberties and size of the group at p; 0 when p is empty.
  int LibertiesAt(int p) const;
  int GroupSizeAt(int p) const;

  // Tromp-Taylor area score from black's side minus komi (go.py:505-523).
  float Score(float komi = kDefaultKomi) const;

  // The board as FromDiagram reads it: 9 lines of 9 characters, no spaces.
  std::string ToDiagram() const;

 private:
  static constexpr uint8_t kNoGroup = 0xff;
  struct Group {
    PointSet stones;
    PointSet liberties;
  };

  void RemoveGroup(int id, PointSet* freed);

  std::array<int8_t, kNumPoints> board_{};               // Color per point
  std::array<uint8_t, kNumPoints> group_of_ = MakeNoGroups();  // group id (a member point) or kNoGroup
  std::array<Group, kNumPoints> groups_{};               // indexed by group id
  Color to_play_ = Color::kBlack;
  int16_t n_ = 0;
  int8_t ko_ = kNoPoint;
  int8_t passes_ = 0;
  std::array<int16_t, 2> caps_{0, 0};  // stones captured by black, by white

  static constexpr std::array<uint8_t, kNumPoints> MakeNoGroups() {
    std::array<uint8_t, kNumPoints> a{};
    for (auto& g : a) g = kNoGroup;
    return a;
  }
};

// "A1".."J9" (column letters skip I, rows count from the bottom) or "pass",
// case-insensitive, to a move index; anything else is an InvalidArgument
// naming the text.
Result<int> ParseGtpMove(std::string_view text);
// The GTP name of a move index 0..81 ("pass" for kPass).
std::string GtpMove(int move);

}  // namespace podbench::minigo
