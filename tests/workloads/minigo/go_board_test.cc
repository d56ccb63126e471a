// The 9x9 engine against positions with known answers: captures, ko,
// suicide, seki, scoring of finished games, pass and game end.
#include "workloads/minigo/go/board.h"

#include <algorithm>
#include <array>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "workloads/minigo/go/random.h"

namespace podbench::minigo {
namespace {

using ::testing::HasSubstr;

Position Diagram(std::string_view d, Color to_play) {
  auto p = Position::FromDiagram(d, to_play);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : Position();
}

int Pt(std::string_view gtp) {
  auto m = ParseGtpMove(gtp);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return m.ok() ? *m : kPass;
}

TEST(GoBoardTest, GtpNamesFollowMiniGoCoords) {
  EXPECT_EQ(Pt("A9"), 0);    // top-left: row 0, column 0
  EXPECT_EQ(Pt("J9"), 8);
  EXPECT_EQ(Pt("A1"), 72);   // bottom-left
  EXPECT_EQ(Pt("e5"), 40);
  EXPECT_EQ(Pt("pass"), kPass);
  EXPECT_EQ(GtpMove(72), "A1");
  EXPECT_EQ(GtpMove(kPass), "pass");
  auto bad = ParseGtpMove("I5");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("\"I5\""));
  EXPECT_FALSE(ParseGtpMove("K1").ok());
  EXPECT_FALSE(ParseGtpMove("A10").ok());
}

// The first rows of a diagram, padded with empty rows to 9.
std::string Pad(std::string rows) {
  while (std::count(rows.begin(), rows.end(), '\n') < kN) rows += ".........\n";
  return rows;
}

TEST(GoBoardTest, DiagramErrorsNameTheInput) {
  auto rows = Position::FromDiagram("X........\n");
  ASSERT_FALSE(rows.ok());
  EXPECT_THAT(rows.status().message(), HasSubstr("1 rows"));
  auto bad_char = Position::FromDiagram(Pad("........\n..Z......\n"));
  ASSERT_FALSE(bad_char.ok());
  EXPECT_THAT(bad_char.status().message(), HasSubstr("row 1 (\"........\") has 8 points"));
  auto bad_point = Position::FromDiagram(Pad(".........\n..Z......\n"));
  ASSERT_FALSE(bad_point.ok());
  EXPECT_THAT(bad_point.status().message(), HasSubstr("row 2 column 3"));
  auto dead = Position::FromDiagram(Pad("XO.......\nO........\n"));
  ASSERT_FALSE(dead.ok());
  EXPECT_THAT(dead.status().message(), HasSubstr("A9 has no liberties"));
  EXPECT_FALSE(Position::FromDiagram(Pad(""), Color::kEmpty).ok());
}

TEST(GoBoardTest, SingleStoneCapture) {
  Position p = Diagram(Pad(
      ".........\n"
      ".........\n"
      ".........\n"
      "....O....\n"
      "...OX....\n"
      "....O....\n"),
      Color::kWhite);
  EXPECT_EQ(p.LibertiesAt(Pt("E5")), 1);
  ASSERT_TRUE(p.Play(Pt("F5")).ok());
  EXPECT_EQ(p.at(Pt("E5")), Color::kEmpty);
  EXPECT_EQ(p.captures(Color::kWhite), 1);
  EXPECT_EQ(p.LibertiesAt(Pt("E6")), 4);  // the captured point is a liberty again
  EXPECT_EQ(p.ko(), kNoPoint);            // F5 was not surrounded by black
  EXPECT_EQ(p.to_play(), Color::kBlack);
}

TEST(GoBoardTest, GroupCaptureInTheCorner) {
  Position p = Diagram(Pad(
      "XXO......\n"
      "XO.......\n"),
      Color::kWhite);
  EXPECT_EQ(p.GroupSizeAt(Pt("A9")), 3);
  EXPECT_EQ(p.LibertiesAt(Pt("A9")), 1);
  ASSERT_TRUE(p.Play(Pt("A7")).ok());
  for (const char* s : {"A9", "B9", "A8"}) EXPECT_EQ(p.at(Pt(s)), Color::kEmpty) << s;
  EXPECT_EQ(p.captures(Color::kWhite), 3);
  EXPECT_EQ(p.LibertiesAt(Pt("B8")), 4);  // A8, B9 freed, plus B7, C8
}

TEST(GoBoardTest, OneMoveCapturesTwoGroups) {
  Position p = Diagram(Pad(
      "X.XO.....\n"
      "O.O......\n"),
      Color::kWhite);
  ASSERT_TRUE(p.Play(Pt("B9")).ok());
  EXPECT_EQ(p.at(Pt("A9")), Color::kEmpty);
  EXPECT_EQ(p.at(Pt("C9")), Color::kEmpty);
  EXPECT_EQ(p.captures(Color::kWhite), 2);
  EXPECT_EQ(p.ko(), kNoPoint);  // two stones: no ko
  EXPECT_EQ(p.LibertiesAt(Pt("B9")), 3);  // A9, C9, B8
}

// White's D5 stone in atari at E5, an eye-shaped point of white's: black E5
// takes it and makes a ko.
constexpr std::string_view kKoShape =
    ".........\n"
    ".........\n"
    ".........\n"
    "...XO....\n"
    "..XO.O...\n"
    "...XO....\n"
    ".........\n"
    ".........\n"
    ".........\n";

TEST(GoBoardTest, KoForbidsTheImmediateRecaptureOnly) {
  Position p = Diagram(kKoShape, Color::kBlack);
  ASSERT_TRUE(p.Play(Pt("E5")).ok());  // black takes the white stone at D5
  EXPECT_EQ(p.at(Pt("D5")), Color::kEmpty);
  EXPECT_EQ(p.ko(), Pt("D5"));
  EXPECT_FALSE(p.IsLegal(Pt("D5")));
  Status retake = p.Play(Pt("D5"));
  ASSERT_FALSE(retake.ok());
  EXPECT_THAT(retake.message(), HasSubstr("white move D5"));
  EXPECT_THAT(retake.message(), HasSubstr("ko"));
  // A ko threat and its answer elsewhere, then the recapture is legal.
  ASSERT_TRUE(p.Play(Pt("A1")).ok());
  EXPECT_EQ(p.ko(), kNoPoint);
  ASSERT_TRUE(p.Play(Pt("J1")).ok());
  ASSERT_TRUE(p.Play(Pt("D5")).ok());
  EXPECT_EQ(p.at(Pt("E5")), Color::kEmpty);
  EXPECT_EQ(p.ko(), Pt("E5"));  // now black may not retake at once
  EXPECT_FALSE(p.IsLegal(Pt("E5")));
}

TEST(GoBoardTest, PassClearsKo) {
  Position p = Diagram(kKoShape, Color::kBlack);
  ASSERT_TRUE(p.Play(Pt("E5")).ok());
  ASSERT_TRUE(p.Play(kPass).ok());  // white passes: go.py:434 clears the ko
  EXPECT_EQ(p.ko(), kNoPoint);
  ASSERT_TRUE(p.Play(kPass).ok());
  EXPECT_TRUE(p.IsGameOver());
}

TEST(GoBoardTest, SuicideIsIllegalButCapturingIntoAnEyeIsNot) {
  Position p = Diagram(Pad(
      ".OX......\n"
      "O.O......\n"
      ".O.......\n"),
      Color::kBlack);
  // A9 and B8 are white's eyes: a single black stone there has no liberty.
  EXPECT_FALSE(p.IsLegal(Pt("A9")));
  EXPECT_FALSE(p.IsLegal(Pt("B8")));
  Status st = p.Play(Pt("B8"));
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("suicide"));
  // Several stones: A9 would join black B9, whose only liberty is A9.
  Position q = Diagram(Pad(
      ".XO......\n"
      "OO.......\n"),
      Color::kBlack);
  EXPECT_FALSE(q.IsLegal(Pt("A9")));
  // The same shape when the move captures: white's B9 group in atari.
  Position r = Diagram(Pad(
      ".OX......\n"
      "XX.......\n"),
      Color::kBlack);
  EXPECT_TRUE(r.IsLegal(Pt("A9")));
  ASSERT_TRUE(r.Play(Pt("A9")).ok());
  EXPECT_EQ(r.at(Pt("B9")), Color::kEmpty);
  EXPECT_EQ(r.ko(), kNoPoint);  // A9 was not surrounded by white only
}

// A seki on the top edge: black B9-B8-B7-C7 and white D9-D8-D7 share their
// only liberties C9 and C8, each enclosed by the other colour's wall; who
// fills one is captured, and area scoring gives them to neither.
constexpr std::string_view kSeki =
    "OX.OX....\n"
    "OX.OX....\n"
    "OXXOX....\n"
    "OOOXX....\n"
    "..OX.....\n"
    "..OX.....\n"
    "..OX.....\n"
    "..OX.....\n"
    "..OX.....\n";

TEST(GoBoardTest, SekiSharedLibertiesCountForNeither) {
  Position p = Diagram(kSeki, Color::kBlack);
  EXPECT_EQ(p.LibertiesAt(Pt("B9")), 2);  // inner black: C9, C8
  EXPECT_EQ(p.LibertiesAt(Pt("D9")), 2);  // inner white: C9, C8
  // Black 55 (14 stones + 41 points), white 24 (14 + 10), C9 and C8 neutral.
  EXPECT_FLOAT_EQ(p.Score(), 55 - 24 - 7.5f);
  EXPECT_FLOAT_EQ(p.Score(0), 31.0f);
  // Filling a shared liberty is legal (self-atari), and the other side then
  // captures: that is why neither plays there.
  ASSERT_TRUE(p.Play(Pt("C9")).ok());
  EXPECT_EQ(p.LibertiesAt(Pt("B9")), 1);
  ASSERT_TRUE(p.Play(Pt("C8")).ok());
  EXPECT_EQ(p.captures(Color::kWhite), 5);
  EXPECT_EQ(p.at(Pt("C9")), Color::kEmpty);
}

TEST(GoBoardTest, ScoresFinishedGamesByArea) {
  EXPECT_FLOAT_EQ(Position().Score(), -7.5f);  // empty board: komi only
  // Two walls: black owns columns A-E (5 x 9), white F-J... F is white's wall.
  Position split = Diagram(
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n",
      Color::kBlack);
  EXPECT_FLOAT_EQ(split.Score(), 45 - 36 - 7.5f);  // B+1.5
  // A dead white stone left in black's area is counted as it stands
  // (Tromp-Taylor): it makes black's region touch white, so the region
  // is nobody's, and the stone counts for white.
  Position dead = Diagram(
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      ".O..XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n"
      "....XO...\n",
      Color::kBlack);
  EXPECT_FLOAT_EQ(dead.Score(), 9 - (36 + 1) - 7.5f);
}

TEST(GoBoardTest, TwoPassesEndTheGameAndAMoveResetsTheCount) {
  Position p;
  ASSERT_TRUE(p.Play(kPass).ok());
  EXPECT_FALSE(p.IsGameOver());
  ASSERT_TRUE(p.Play(Pt("E5")).ok());
  EXPECT_EQ(p.consecutive_passes(), 0);
  ASSERT_TRUE(p.Play(kPass).ok());
  ASSERT_TRUE(p.Play(kPass).ok());
  EXPECT_TRUE(p.IsGameOver());
  EXPECT_EQ(p.move_number(), 4);
  EXPECT_FLOAT_EQ(p.Score(), -81 - 7.5f);  // white's one stone (E5, move 2) owns the board
}

// Random games end by two passes or at exactly 162 moves (mcts.py:31), and
// some reach the limit.
TEST(GoBoardTest, GamesEndAtTheMoveLimitOf162) {
  EXPECT_EQ(kMaxGameLength, 162);
  Rng rng(3);
  int at_limit = 0;
  for (int game = 0; game < 20; ++game) {
    Position p;
    while (!p.IsTerminal()) {
      std::array<int8_t, kNumPoints> legal;
      const int n = p.LegalPoints(&legal);
      ASSERT_TRUE(p.Play(n == 0 ? kPass : legal[rng.UniformInt(n)]).ok());
    }
    EXPECT_LE(p.move_number(), 162);
    if (!p.IsGameOver()) {
      EXPECT_EQ(p.move_number(), 162);
      ++at_limit;
    }
  }
  EXPECT_GT(at_limit, 0);
}

TEST(GoBoardTest, OutOfRangeMoveIsAnError) {
  Position p;
  Status st = p.Play(82);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("82"));
  ASSERT_TRUE(p.Play(Pt("E5")).ok());
  Status occ = p.Play(Pt("E5"));
  ASSERT_FALSE(occ.ok());
  EXPECT_THAT(occ.message(), HasSubstr("occupied"));
}

// The incremental groups agree with groups rebuilt from the board, over
// random games.
TEST(GoBoardTest, IncrementalLibertiesMatchARebuildOverRandomGames) {
  Rng rng(11);
  for (int game = 0; game < 30; ++game) {
    Position p;
    while (!p.IsTerminal()) {
      std::array<int8_t, kNumPoints> legal;
      const int n = p.LegalPoints(&legal);
      const int m = (n == 0 || rng.UniformInt(40) == 0) ? kPass : legal[rng.UniformInt(n)];
      ASSERT_TRUE(p.Play(m).ok());
      auto rebuilt = Position::FromDiagram(p.ToDiagram(), p.to_play());
      ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString() << "\n" << p.ToDiagram();
      for (int q = 0; q < kNumPoints; ++q) {
        ASSERT_EQ(p.LibertiesAt(q), rebuilt->LibertiesAt(q)) << GtpMove(q) << "\n" << p.ToDiagram();
        ASSERT_EQ(p.GroupSizeAt(q), rebuilt->GroupSizeAt(q)) << GtpMove(q);
      }
      // The legal moves differ only at the ko point.
      PointSet a = p.LegalMoves();
      PointSet b = rebuilt->LegalMoves();
      if (p.ko() != kNoPoint) b.reset(p.ko());
      ASSERT_TRUE(a == b) << p.ToDiagram();
    }
  }
}

}  // namespace
}  // namespace podbench::minigo
