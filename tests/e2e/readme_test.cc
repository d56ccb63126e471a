// The README's examples are tests: every command in its ```sh blocks runs,
// in order, against the built binary, in one scratch folder, and must exit
// as the README says and print the lines it quotes.
//
// How the README states what a command prints (the comment that opens its
// "Commands" section says the same):
//   - in a ```sh block, every line that is not blank and does not start with
//     '#' is a command; a trailing "\" continues it; `for ...` to `done` is
//     one command; " # ..." after a command is a comment;
//   - "#> TEXT" lines after a command are lines of its output (stdout and
//     stderr), each compared whole, spaces at either end aside; a quoted
//     line that ends in "..." need only begin the output line;
//     "#> exit N" says it exits N (default 0);
//   - a ```text block that follows a ```sh block (blank lines between at
//     most) quotes the output of that block's last command: its lines must
//     appear in that order; "..." lines stand for any lines.
// Numbers are compared as printed: the quoted commands are deterministic.
//
// Commands that are slow (training for more than a few seconds, whole
// benchmark suites), that build or install, or that need another build are
// listed in kSubstitutes with the reason, and a quick variant of each runs
// in their place. Commands that read ../shared are skipped, with a message,
// when it is absent.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/sanitizers.h"
#include "tests/testing/shared_dir.h"
#include "tests/testing/temp_dir.h"

namespace podbench::testing {
namespace {

namespace fs = std::filesystem;

struct Command {
  int line = 0;            // of README.md, 1-based
  std::string text;        // as it would be typed, continuations joined
  int exit_code = 0;
  std::vector<std::string> lines;  // "#> " lines: each must be an output line
  std::vector<std::string> block;  // a ```text block: in order, "..." skips
};

std::string Trim(std::string s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// `line` without a trailing " # comment" outside quotes.
std::string StripComment(const std::string& line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return Trim(line.substr(0, i));
    }
  }
  return Trim(line);
}

bool StartsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// The README's commands, in order.
std::vector<Command> ParseReadme(const std::string& text, std::string* error) {
  std::vector<Command> out;
  std::istringstream in(text);
  std::string raw;
  int n = 0;
  std::string fence;             // the open block's language; "" outside a block
  bool in_block = false;
  constexpr size_t kNone = static_cast<size_t>(-1);
  size_t last_sh = kNone;        // index in `out` of the last command of the last closed sh block
  bool only_blank_since_sh = false;
  std::string pending;           // a command continued with '\' or inside for...done
  int pending_line = 0;
  bool in_loop = false;
  size_t text_target = kNone;    // the command an open ```text block quotes
  while (std::getline(in, raw)) {
    ++n;
    const std::string t = Trim(raw);
    if (!in_block) {
      if (StartsWith(t, "```")) {
        in_block = true;
        fence = Trim(t.substr(3));
        text_target = fence == "text" && only_blank_since_sh ? last_sh : kNone;
      } else if (!t.empty()) {
        only_blank_since_sh = false;
      }
      continue;
    }
    if (t == "```") {
      in_block = false;
      if (fence == "sh") {
        if (!pending.empty()) {
          *error = "README.md:" + std::to_string(pending_line) + ": a command is not finished at the block's end";
          return {};
        }
        last_sh = out.empty() ? kNone : out.size() - 1;
        only_blank_since_sh = true;
      } else {
        last_sh = kNone;
      }
      continue;
    }
    if (fence == "text") {
      if (text_target != kNone) out[text_target].block.push_back(Trim(raw));
      continue;
    }
    if (fence != "sh") continue;
    if (StartsWith(t, "#>")) {
      if (out.empty()) {
        *error = "README.md:" + std::to_string(n) + ": \"#>\" before any command";
        return {};
      }
      const std::string quoted = Trim(t.substr(2));
      if (StartsWith(quoted, "exit ")) {
        out.back().exit_code = std::stoi(quoted.substr(5));
      } else {
        out.back().lines.push_back(quoted);
      }
      continue;
    }
    if (t.empty() || (pending.empty() && t[0] == '#')) continue;
    std::string code = StripComment(raw);
    if (pending.empty()) pending_line = n;
    const bool continued = !code.empty() && code.back() == '\\';
    if (continued) code = Trim(code.substr(0, code.size() - 1));
    if (pending.empty() && StartsWith(code, "for ")) in_loop = true;
    pending += (pending.empty() ? "" : (in_loop && !continued ? "\n" : " ")) + code;
    if (in_loop && (code == "done" || StartsWith(code, "done "))) in_loop = false;
    if (!continued && !in_loop) {
      Command c;
      c.line = pending_line;
      c.text = pending;
      out.push_back(c);
      pending.clear();
    }
  }
  return out;
}

// A command the test does not run as written, with why, and what runs in
// its place. `quoted_exempt`: quoted lines (by a substring) the variant
// cannot print, with the reason in `why`.
struct Substitute {
  Substitute(std::string w, std::string v, std::vector<std::string> exempt = {})
      : why(std::move(w)), variant(std::move(v)), quoted_exempt(std::move(exempt)) {}
  std::string why;
  std::string variant;
  std::vector<std::string> quoted_exempt;
};

// Keyed by the README's command text, exactly. Every key must still be in
// the README (the test fails otherwise), so this list cannot go stale.
const std::map<std::string, Substitute>& Substitutes() {
  static const std::map<std::string, Substitute> m = {
      {"bash scripts/quickstart.sh",
       {"installs packages, builds, and runs the whole main job (its two functional claims train for about "
        "a minute); the variant runs the same job with the claims that need no training",
        "podbench reproduce --claims projected --out quickstart"}},
      {"bash scripts/test.sh",
       {"builds and runs the whole test suite, this test included", "bash -n \"$PODBENCH_SOURCE_DIR/scripts/test.sh\""}},
      {"podbench reproduce",
       {"has two functional claims that train for about a minute; the variant runs everything else",
        "podbench reproduce --claims projected",
        {"resnet-distributed-bn-accuracy", "resnet-lars-large-batch"}}},
      {"podbench run resnet --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 3 --db runs.db",
       {"trains for about 15 s; the variant trains a 4-class version to MLPerf's 0.759",
        "podbench run resnet --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 3 "
        "--db runs.db --set functional_classes=4 --set functional_target=0.76"}},
      {"podbench run maskrcnn --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 1 --log mrf.log "
       "--db runs.db",
       {"trains for 4 to 8 minutes; the variant trains a one-class 64x64 version to MLPerf's 0.377 / 0.339 (as "
        "maskrcnn_run_e2e_test does), whose score differs",
        "podbench run maskrcnn --mode functional --slice tpu-v3-8 --preset functional --runs 1 --seed 1 --log mrf.log "
        "--db runs.db --set functional_image_size=64 --set functional_spread_area_ranges=false "
        "--set functional_classes=1 --set functional_max_objects=1 --set functional_min_object_size=16 "
        "--set functional_train_examples=128 --set functional_eval_examples=16 --set num_image_candidates=50 "
        "--set first_lr_drop_step=240 --set second_lr_drop_step=400 --set max_epochs=40 "
        "--set functional_target_box_map=0.377 --set functional_target_mask_map=0.339",
        {"score:"}}},
      {"for side in base cand; do\n"
       "build/$side/harness/podbench run toy --runs 5 --seed 1 --label $side --db ci.db\n"
       "build/$side/harness/podbench bench --filter 'gemm_f32/m512' --label $side --db ci.db\n"
       "done",
       {"needs two builds of two commits, its benchmark sets take minutes, and benchmark timings on a shared "
        "machine are not deterministic enough for the gate's verdict to be an expected output; the variant "
        "makes both run sets with this build (as build/base and build/cand)",
        "mkdir -p build/base/harness build/cand/harness && "
        "ln -sf \"$(command -v podbench)\" build/base/harness/podbench && "
        "ln -sf \"$(command -v podbench)\" build/cand/harness/podbench && "
        "for side in base cand; do build/$side/harness/podbench run toy --runs 5 --seed 1 --label $side "
        "--db ci.db || exit 1; done"}},
      {"podbench bench --filter 'gemm_bf16/m1024' --repetitions 5",
       {"measures 40 benchmarks 5 times (about 40 s); the variant measures one of them once",
        "podbench bench --filter 'gemm_bf16/m1024n1024k1024/podbench:bf16_gemm__avx2_fma_6x16/threads:1' "
        "--min-time 0.01"}},
      {"bash scripts/install-deps.sh",
       {"installs Debian packages", "bash -n \"$PODBENCH_SOURCE_DIR/scripts/install-deps.sh\""}},
      {"bash scripts/build.sh build/release",
       {"builds podbench (the build under test is already made)",
        "bash -n \"$PODBENCH_SOURCE_DIR/scripts/build.sh\""}},
      {"ctest --test-dir build/release -j2", {"runs the whole test suite, this test included", "ctest --version"}},
      {"bash scripts/build.sh build/asan -DPODBENCH_SANITIZE=ON",
       {"is a second full build", "bash -n \"$PODBENCH_SOURCE_DIR/scripts/build.sh\""}},
      {"bash scripts/tsan.sh",
       {"is a ThreadSanitizer build and its tests", "bash -n \"$PODBENCH_SOURCE_DIR/scripts/tsan.sh\""}},
      {"bash scripts/cleanroom.sh",
       {"builds a Debian root and podbench in it (CI's first stage)",
        "bash -n \"$PODBENCH_SOURCE_DIR/scripts/cleanroom.sh\""}},
      {"podbench calibrate --write topology/systems/tpu-v3.yaml",
       {"rewrites the checked-in system file of a source tree; the variant writes a copy",
        "podbench calibrate --write tpu-v3-fitted.yaml"}},
  };
  return m;
}

// Benchmarks: a build without them answers exit 3, which the test accepts.
bool IsBench(const std::string& cmd) { return cmd.find("podbench bench") != std::string::npos; }

// The file a command's output goes to ("... > FILE" at its end), if any.
std::optional<std::string> RedirectTarget(const std::string& cmd) {
  const size_t at = cmd.rfind('>');
  if (at == std::string::npos) return std::nullopt;
  const std::string file = Trim(cmd.substr(at + 1));
  if (file.empty() || file.find_first_of(" \t;&|") != std::string::npos) return std::nullopt;
  return file;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(Trim(l));
  return out;
}

bool LineMatches(const std::string& quoted, const std::string& actual) {
  if (quoted.size() >= 3 && quoted.compare(quoted.size() - 3, 3, "...") == 0) {
    return StartsWith(actual, Trim(quoted.substr(0, quoted.size() - 3)));
  }
  return quoted == actual;
}

bool Exempt(const std::string& quoted, const Substitute* sub) {
  if (sub == nullptr) return false;
  for (const std::string& key : sub->quoted_exempt) {
    if (quoted.find(key) != std::string::npos) return true;
  }
  return false;
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path Readme() { return fs::path(PODBENCH_SOURCE_DIR) / "README.md"; }

TEST(ReadmeTest, ParsesCommandsQuotedLinesAndOutputBlocks) {
  const std::string md =
      "text\n```sh\npodbench a --x 1   # a comment\n#> line one\n#> exit 1\n# plain comment\n"
      "podbench b \\\n    --y 'q # not a comment'\nfor s in 1 2; do\n  echo $s\ndone\n```\n\n```text\nout 1\n...\nout 2\n```\n"
      "```text\nnot quoted\n```\n";
  std::string error;
  const std::vector<Command> c = ParseReadme(md, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].text, "podbench a --x 1");
  EXPECT_EQ(c[0].line, 3);
  EXPECT_EQ(c[0].exit_code, 1);
  EXPECT_THAT(c[0].lines, ::testing::ElementsAre("line one"));
  EXPECT_EQ(c[1].text, "podbench b --y 'q # not a comment'");
  EXPECT_EQ(c[2].text, "for s in 1 2; do\necho $s\ndone");
  EXPECT_THAT(c[2].block, ::testing::ElementsAre("out 1", "...", "out 2"));
  EXPECT_TRUE(c[1].block.empty());
  EXPECT_TRUE(LineMatches("a b ...", "a b c d"));
  EXPECT_EQ(RedirectTarget("podbench bench --format json > base.json"), "base.json");
  EXPECT_FALSE(RedirectTarget("podbench bench --filter x").has_value());
  EXPECT_FALSE(LineMatches("a b", "a b c"));
}

// Every substituted command is still in the README, and every command runs
// and prints what the README quotes.
TEST(ReadmeTest, EveryExampleRunsAndPrintsWhatTheReadmeQuotes) {
  // About 2 minutes under ASan (30 s in the release build).
  PODBENCH_RELEASE_STAGE_ONLY("each subcommand the README runs has its own end-to-end tests, and JsonOutputTest runs every one");
  const std::string text = ReadFile(Readme());
  ASSERT_FALSE(text.empty()) << Readme() << " cannot be read";
  std::string error;
  const std::vector<Command> commands = ParseReadme(text, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GT(commands.size(), 20u) << "the README's commands were not found";
  for (const auto& [cmd, sub] : Substitutes()) {
    const bool present =
        std::any_of(commands.begin(), commands.end(), [&](const Command& c) { return c.text == cmd; });
    EXPECT_TRUE(present) << "kSubstitutes names a command the README no longer has:\n" << cmd;
  }

  // The scratch layout: ROOT/main is the working folder, ROOT/shared the
  // reference material (a link, when present), ROOT/bin/podbench the binary.
  TempDir root;
  const fs::path work = root / "main", bin = root / "bin";
  fs::create_directories(work);
  fs::create_directories(bin);
  ASSERT_TRUE(fs::is_regular_file(PodbenchBinary())) << PodbenchBinary() << ": no podbench binary (ctest sets "
                                                       "PODBENCH_BINARY)";
  fs::create_symlink(fs::absolute(PodbenchBinary()), bin / "podbench");
  const std::optional<fs::path> shared = SharedDir();
  if (shared) fs::create_directory_symlink(fs::absolute(*shared), root / "shared");
  const std::string env = "cd '" + work.string() + "' && export PATH='" + bin.string() +
                          "':\"$PATH\" PODBENCH_SOURCE_DIR='" + PODBENCH_SOURCE_DIR + "' XDG_CACHE_HOME='" +
                          (root / "cache").string() +
                          // The README's mpirun example: CI runs as root, maybe on fewer cores than ranks.
                          "' OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                          "OMPI_MCA_rmaps_base_oversubscribe=1 && ";

  int ran = 0, substituted = 0, skipped = 0;
  std::vector<std::string> unwritten;  // files skipped commands would have written
  for (const Command& c : commands) {
    const auto found = Substitutes().find(c.text);
    const Substitute* sub = found == Substitutes().end() ? nullptr : &found->second;
    const std::string run = sub ? sub->variant : c.text;
    const std::string where = "README.md:" + std::to_string(c.line) + ": " + c.text +
                              (sub ? "\n  (ran instead: " + run + "\n   why: it " + sub->why + ")" : "");
    if (!shared && c.text.find("../shared") != std::string::npos) {
      std::cout << "[ SKIPPED  ] " << where << "\n             ../shared is absent\n";
      ++skipped;
      continue;
    }
    // A command that reads what a skipped one would have written is skipped too.
    const auto missing = std::find_if(unwritten.begin(), unwritten.end(), [&](const std::string& f) {
      return run.find(f) != std::string::npos;
    });
    if (missing != unwritten.end()) {
      std::cout << "[ SKIPPED  ] " << where << "\n             it reads " << *missing
                << ", which a skipped command writes\n";
      ++skipped;
      continue;
    }
    std::string output;
    // Under AddressSanitizer, OpenMPI's own allocations (MPI_Init's, kept
    // until exit, partly in dlopen'ed components no suppression can name)
    // read as leaks: the ranks of an mpirun example run without leak
    // checking, as the mpirun ctest entries do; the other checks stay on.
    const std::string mpi_env =
        run.rfind("mpirun ", 0) == 0 ? "export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 && " : "";
    const int rc = RunCommand(env + mpi_env + "{\n" + run + "\n}", &output);
    if (IsBench(run) && rc == 3) {
      std::cout << "[ SKIPPED  ] " << where << "\n             this build has no benchmarks (exit 3)\n";
      if (auto f = RedirectTarget(run)) unwritten.push_back(*f);
      ++skipped;
      continue;
    }
    ++(sub ? substituted : ran);
    const int expected_rc = c.exit_code;  // a variant exits as the command it stands for
    EXPECT_EQ(rc, expected_rc) << where << "\n--- output ---\n" << output;
    const std::vector<std::string> got = Lines(output);
    for (const std::string& q : c.lines) {
      if (Exempt(q, sub)) continue;
      const bool printed = std::any_of(got.begin(), got.end(), [&](const std::string& l) { return LineMatches(q, l); });
      EXPECT_TRUE(printed) << where << "\n  does not print the quoted line:\n  " << q << "\n--- output ---\n" << output;
    }
    size_t at = 0;
    for (const std::string& q : c.block) {
      if (q == "..." || q.empty() || Exempt(q, sub)) continue;
      size_t i = at;
      while (i < got.size() && !LineMatches(q, got[i])) ++i;
      EXPECT_LT(i, got.size()) << where << "\n  does not print, in the quoted order, the line:\n  " << q
                               << "\n--- output ---\n" << output;
      if (i < got.size()) at = i + 1;
    }
  }
  std::cout << "README examples: " << ran << " run as written, " << substituted << " by their quick variant, "
            << skipped << " skipped\n";
  EXPECT_GT(ran, 15);
}

}  // namespace
}  // namespace podbench::testing
