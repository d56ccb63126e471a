#include "workloads/minigo/go/board.h"

#include <cctype>

namespace podbench::minigo {
namespace {

constexpr std::string_view kGtpColumns = "ABCDEFGHJ";  // coords.py: no 'I'

constexpr std::array<Neighbours, kNumPoints> BuildNeighbours() {
  std::array<Neighbours, kNumPoints> t{};
  for (int r = 0; r < kN; ++r) {
    for (int c = 0; c < kN; ++c) {
      Neighbours& nb = t[r * kN + c];
      if (r > 0) nb.p[nb.n++] = static_cast<int8_t>((r - 1) * kN + c);
      if (c > 0) nb.p[nb.n++] = static_cast<int8_t>(r * kN + c - 1);
      if (c + 1 < kN) nb.p[nb.n++] = static_cast<int8_t>(r * kN + c + 1);
      if (r + 1 < kN) nb.p[nb.n++] = static_cast<int8_t>((r + 1) * kN + c);
    }
  }
  return t;
}

constexpr std::array<Neighbours, kNumPoints> kNeighbours = BuildNeighbours();

}  // namespace

const std::array<Neighbours, kNumPoints>& NeighbourTable() { return kNeighbours; }

bool Position::IsLegal(int move) const {
  if (move == kPass) return true;
  if (board_[move] != 0 || move == ko_) return false;
  const Neighbours& nb = kNeighbours[move];
  for (int i = 0; i < nb.n; ++i) {
    const int q = nb.p[i];
    if (board_[q] == 0) return true;  // a liberty of its own
    const int libs = groups_[group_of_[q]].liberties.count();
    if (static_cast<Color>(board_[q]) == to_play_) {
      if (libs > 1) return true;  // joins a group that keeps another liberty
    } else if (libs == 1) {
      return true;  // captures, which frees a liberty
    }
  }
  return false;  // suicide (go.py:366-382)
}

PointSet Position::LegalMoves() const {
  PointSet legal;
  for (int p = 0; p < kNumPoints; ++p)
    if (IsLegal(p)) legal.set(p);
  legal.set(kPass);
  return legal;
}

int Position::LegalPoints(std::array<int8_t, kNumPoints>* points) const {
  int n = 0;
  for (int p = 0; p < kNumPoints; ++p)
    if (IsLegal(p)) (*points)[static_cast<size_t>(n++)] = static_cast<int8_t>(p);
  return n;
}

void Position::RemoveGroup(int id, PointSet* freed) {
  groups_[id].stones.ForEach([&](int s) {
    board_[s] = 0;
    group_of_[s] = kNoGroup;
    freed->set(s);
  });
  groups_[id] = Group{};
}

void Position::PlayLegal(int move) {
  ++n_;
  if (move == kPass) {
    ko_ = kNoPoint;  // go.py:434
    ++passes_;
    to_play_ = Opponent(to_play_);
    return;
  }
  passes_ = 0;
  const Color me = to_play_;
  const Color opp = Opponent(me);
  const Neighbours& nb = kNeighbours[move];

  // go.py is_koish: every on-board neighbour is an opponent stone.
  bool koish = true;
  for (int i = 0; i < nb.n; ++i) koish &= static_cast<Color>(board_[nb.p[i]]) == opp;

  // The new stone's group takes id `move` and absorbs friendly neighbours.
  board_[move] = static_cast<int8_t>(me);
  group_of_[move] = static_cast<uint8_t>(move);
  Group& g = groups_[move];
  g = Group{};
  g.stones.set(move);
  for (int i = 0; i < nb.n; ++i) {
    const int q = nb.p[i];
    if (board_[q] == 0) {
      g.liberties.set(q);
    } else if (static_cast<Color>(board_[q]) == me && group_of_[q] != move) {
      const int other = group_of_[q];
      g.stones |= groups_[other].stones;
      g.liberties |= groups_[other].liberties;
      groups_[other].stones.ForEach([&](int s) { group_of_[s] = static_cast<uint8_t>(move); });
      groups_[other] = Group{};
    }
  }
  g.liberties.reset(move);

  // Opponent neighbours lose the liberty; those left with none are captured.
  PointSet freed;
  for (int i = 0; i < nb.n; ++i) {
    const int q = nb.p[i];
    if (static_cast<Color>(board_[q]) != opp) continue;
    const int id = group_of_[q];
    groups_[id].liberties.reset(move);
    if (groups_[id].liberties.empty()) RemoveGroup(id, &freed);
  }
  const int captured = freed.count();
  freed.ForEach([&](int s) {
    const Neighbours& snb = kNeighbours[s];
    for (int i = 0; i < snb.n; ++i) {
      const int t = snb.p[i];
      if (board_[t] != 0) groups_[group_of_[t]].liberties.set(s);
    }
  });

  // go.py:477-480: one stone captured by a stone played into an opponent's
  // eye-shaped point makes the captured point the ko.
  ko_ = kNoPoint;
  if (captured == 1 && koish) freed.ForEach([&](int s) { ko_ = static_cast<int8_t>(s); });
  caps_[me == Color::kBlack ? 0 : 1] = static_cast<int16_t>(caps_[me == Color::kBlack ? 0 : 1] + captured);
  to_play_ = opp;
}

Status Position::Play(int move) {
  if (move < 0 || move > kPass) {
    return Status::InvalidArgument("move index " + std::to_string(move) + " is outside 0..81");
  }
  if (!IsLegal(move)) {
    const char* why = board_[move] != 0 ? "the point is occupied"
                      : move == ko_     ? "it retakes the ko"
                                        : "it is suicide";
    return Status::InvalidArgument(std::string(to_play_ == Color::kBlack ? "black" : "white") + " move " +
                                   GtpMove(move) + " at move " + std::to_string(n_ + 1) +
                                   " is illegal: " + why);
  }
  PlayLegal(move);
  return Status::Ok();
}

int Position::LibertiesAt(int p) const {
  return board_[p] == 0 ? 0 : groups_[group_of_[p]].liberties.count();
}

int Position::GroupSizeAt(int p) const {
  return board_[p] == 0 ? 0 : groups_[group_of_[p]].stones.count();
}

float Position::Score(float komi) const {
  int black = 0;
  int white = 0;
  std::array<bool, kNumPoints> seen{};
  std::array<int8_t, kNumPoints> stack{};
  for (int p = 0; p < kNumPoints; ++p) {
    if (board_[p] == static_cast<int8_t>(Color::kBlack)) {
      ++black;
      continue;
    }
    if (board_[p] == static_cast<int8_t>(Color::kWhite)) {
      ++white;
      continue;
    }
    if (seen[p]) continue;
    // Flood the empty region from p and note which colours border it.
    int size = 0;
    int top = 0;
    bool reaches_black = false;
    bool reaches_white = false;
    stack[top++] = static_cast<int8_t>(p);
    seen[p] = true;
    while (top > 0) {
      const int q = stack[--top];
      ++size;
      const Neighbours& nb = kNeighbours[q];
      for (int i = 0; i < nb.n; ++i) {
        const int t = nb.p[i];
        const Color c = static_cast<Color>(board_[t]);
        if (c == Color::kBlack) {
          reaches_black = true;
        } else if (c == Color::kWhite) {
          reaches_white = true;
        } else if (!seen[t]) {
          seen[t] = true;
          stack[top++] = static_cast<int8_t>(t);
        }
      }
    }
    if (reaches_black && !reaches_white) black += size;
    if (reaches_white && !reaches_black) white += size;
  }
  return static_cast<float>(black - white) - komi;
}

std::string Position::ToDiagram() const {
  std::string out;
  out.reserve(kNumPoints + kN);
  for (int r = 0; r < kN; ++r) {
    for (int c = 0; c < kN; ++c) {
      const Color col = at(r * kN + c);
      out += col == Color::kBlack ? 'X' : col == Color::kWhite ? 'O' : '.';
    }
    out += '\n';
  }
  return out;
}

Result<Position> Position::FromDiagram(std::string_view diagram, Color to_play) {
  if (to_play == Color::kEmpty) return Status::InvalidArgument("diagram: to_play must be black or white");
  Position pos;
  int row = 0;
  int col = 0;
  size_t line_start = 0;
  for (size_t i = 0; i <= diagram.size(); ++i) {
    const char ch = i < diagram.size() ? diagram[i] : '\n';
    if (ch == ' ' || ch == '\t' || ch == '\r') continue;
    if (ch == '\n') {
      if (col == 0) {
        line_start = i + 1;
        continue;  // blank line
      }
      if (col != kN) {
        return Status::InvalidArgument("diagram row " + std::to_string(row + 1) + " (\"" +
                                       std::string(diagram.substr(line_start, i - line_start)) + "\") has " +
                                       std::to_string(col) + " points, not 9");
      }
      ++row;
      col = 0;
      line_start = i + 1;
      continue;
    }
    if (row >= kN) return Status::InvalidArgument("diagram has more than 9 rows");
    if (col >= kN) {
      return Status::InvalidArgument("diagram row " + std::to_string(row + 1) + " has more than 9 points");
    }
    Color c;
    switch (ch) {
      case 'X': case 'x': c = Color::kBlack; break;
      case 'O': case 'o': c = Color::kWhite; break;
      case '.': case '+': c = Color::kEmpty; break;
      default:
        return Status::InvalidArgument("diagram row " + std::to_string(row + 1) + " column " +
                                       std::to_string(col + 1) + ": '" + std::string(1, ch) +
                                       "' is not X, O or .");
    }
    pos.board_[row * kN + col] = static_cast<int8_t>(c);
    ++col;
  }
  if (row != kN) return Status::InvalidArgument("diagram has " + std::to_string(row) + " rows, not 9");

  // Build the groups by flood fill.
  for (int p = 0; p < kNumPoints; ++p) {
    if (pos.board_[p] == 0 || pos.group_of_[p] != kNoGroup) continue;
    Group& g = pos.groups_[p];
    std::array<int8_t, kNumPoints> stack{};
    int top = 0;
    stack[top++] = static_cast<int8_t>(p);
    pos.group_of_[p] = static_cast<uint8_t>(p);
    while (top > 0) {
      const int q = stack[--top];
      g.stones.set(q);
      const Neighbours& nb = kNeighbours[q];
      for (int i = 0; i < nb.n; ++i) {
        const int t = nb.p[i];
        if (pos.board_[t] == 0) {
          g.liberties.set(t);
        } else if (pos.board_[t] == pos.board_[p] && pos.group_of_[t] == kNoGroup) {
          pos.group_of_[t] = static_cast<uint8_t>(p);
          stack[top++] = static_cast<int8_t>(t);
        }
      }
    }
    if (g.liberties.empty()) {
      return Status::InvalidArgument("diagram: the group at " + GtpMove(p) + " has no liberties");
    }
  }
  pos.to_play_ = to_play;
  return pos;
}

Result<int> ParseGtpMove(std::string_view text) {
  std::string t;
  for (char ch : text) t += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (t == "PASS") return kPass;
  const size_t col = t.empty() ? std::string_view::npos : kGtpColumns.find(t[0]);
  if (col == std::string_view::npos || t.size() != 2 || t[1] < '1' || t[1] > '9') {
    return Status::InvalidArgument("\"" + std::string(text) + "\" is not a 9x9 GTP move (A1..J9, no I, or pass)");
  }
  const int row_from_bottom = t[1] - '0';
  return (kN - row_from_bottom) * kN + static_cast<int>(col);
}

std::string GtpMove(int move) {
  if (move == kPass) return "pass";
  if (move < 0 || move > kPass) return "invalid(" + std::to_string(move) + ")";
  std::string s(1, kGtpColumns[static_cast<size_t>(move % kN)]);
  s += static_cast<char>('0' + (kN - move / kN));
  return s;
}

}  // namespace podbench::minigo
