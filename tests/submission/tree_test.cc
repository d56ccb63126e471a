// The submission tree walk: layout, links, bounds, and that it never writes.
#include "submission/tree.h"

#include <fstream>

#include <gtest/gtest.h>

#include "tests/testing/temp_dir.h"

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

void Write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// A small training tree: one system, one benchmark with two result files.
void MakeTree(const fs::path& root) {
  Write(root / "systems/sys1.json", "{}");
  Write(root / "systems/notes.txt", "x");
  Write(root / "results/sys1/bert/result_0.txt", "a");
  Write(root / "results/sys1/bert/result_1.txt", "b");
  Write(root / "results/sys1/bert/output.log", "c");
  Write(root / "results/sys1/stray.txt", "d");
  Write(root / "benchmarks/bert/implementations/run.sh", "seed");
  Write(root / "README.md", "hi");
}

bool HasProblem(const Tree& t, const std::string& path, const std::string& words) {
  for (const auto& p : t.problems) {
    if (p.path == path && p.message.find(words) != std::string::npos) return true;
  }
  return false;
}

TEST(TreeWalk, ClassifiesTheOfficialLayout) {
  testing::TempDir dir;
  MakeTree(dir.path());
  auto t = WalkTree(dir.path(), Usage::kTraining);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_EQ(t->system_files.size(), 1u);
  EXPECT_EQ(t->system_files[0].path, "systems/sys1.json");
  EXPECT_EQ(t->systems_other, std::vector<std::string>{"systems/notes.txt"});
  ASSERT_EQ(t->benchmark_dirs.size(), 1u);
  const auto& b = t->benchmark_dirs[0];
  EXPECT_EQ(b.system, "sys1");
  EXPECT_EQ(b.benchmark, "bert");
  ASSERT_EQ(b.result_files.size(), 2u);
  EXPECT_EQ(b.result_files[1].path, "results/sys1/bert/result_1.txt");
  ASSERT_EQ(b.other_files.size(), 1u);
  EXPECT_EQ(b.other_files[0].path, "results/sys1/bert/output.log");
  EXPECT_EQ(t->results_misplaced, std::vector<std::string>{"results/sys1/stray.txt"});
  EXPECT_EQ(t->benchmark_sources, std::vector<std::string>{"benchmarks/bert"});
  EXPECT_EQ(t->extra_files, std::vector<std::string>{"README.md"});
  EXPECT_FALSE(t->HasErrors());
  ASSERT_NE(t->SystemFile("sys1"), nullptr);
  EXPECT_EQ(t->SystemFile("sys2"), nullptr);
}

TEST(TreeWalk, HpcHasAScalingLevel) {
  testing::TempDir dir;
  Write(dir / "results/sys1/strong/deepcam/result_0.txt", "a");
  auto t = WalkTree(dir.path(), Usage::kHpc);
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->benchmark_dirs.size(), 1u);
  EXPECT_EQ(t->benchmark_dirs[0].scaling, "strong");
  EXPECT_EQ(t->benchmark_dirs[0].benchmark, "deepcam");
  EXPECT_EQ(t->benchmark_dirs[0].result_files.size(), 1u);
}

TEST(TreeWalk, LinksLeavingTheTreeAreReportedAndNotFollowed) {
  testing::TempDir dir;
  const fs::path root = dir / "tree";
  MakeTree(root);
  Write(dir / "outside/secret.txt", "secret");
  fs::create_directory_symlink(dir / "outside", root / "results/sys1/escape");
  fs::create_symlink(dir / "outside/secret.txt", root / "results/sys1/bert/result_2.txt");
  fs::create_symlink("missing.txt", root / "results/sys1/bert/result_3.txt");
  fs::create_symlink("result_0.txt", root / "results/sys1/bert/result_4.txt");  // inside: listed
  auto t = WalkTree(root, Usage::kTraining);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(HasProblem(*t, "results/sys1/escape", "leaves the tree"));
  EXPECT_TRUE(HasProblem(*t, "results/sys1/bert/result_2.txt", "leaves the tree"));
  EXPECT_TRUE(HasProblem(*t, "results/sys1/bert/result_3.txt", "broken symbolic link"));
  EXPECT_TRUE(t->HasErrors());
  for (const auto& f : t->files) EXPECT_EQ(f.path.find("secret"), std::string::npos) << f.path;
  ASSERT_EQ(t->benchmark_dirs[0].result_files.size(), 3u);  // 0, 1, and the link 4
  EXPECT_TRUE(t->benchmark_dirs[0].result_files[2].symlink);
  auto text = ReadTreeFile(*t, "results/sys1/bert/result_4.txt", 100);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  EXPECT_EQ(*text, "a");
  EXPECT_FALSE(ReadTreeFile(*t, "results/sys1/bert/result_2.txt", 100).ok());
  EXPECT_FALSE(ReadTreeFile(*t, "../outside/secret.txt", 100).ok());
}

TEST(TreeWalk, DepthEntryAndSizeBoundsGiveClearMessages) {
  testing::TempDir dir;
  MakeTree(dir.path());
  fs::create_directories(dir / "benchmarks/bert/a/b/c/d");
  WalkLimits limits;
  limits.max_depth = 4;
  auto t = WalkTree(dir.path(), Usage::kTraining, limits);
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(HasProblem(*t, "benchmarks/bert/a/b/c", "deeper than the bound of 4"));

  limits = WalkLimits{};
  limits.max_entries = 3;
  t = WalkTree(dir.path(), Usage::kTraining, limits);
  ASSERT_TRUE(t.ok());
  ASSERT_TRUE(t->HasErrors());
  EXPECT_NE(t->problems[0].message.find("more than 3 files and folders"), std::string::npos);

  t = WalkTree(dir.path(), Usage::kTraining);
  ASSERT_TRUE(t.ok());
  auto big = ReadTreeFile(*t, "README.md", 1);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("larger than the bound of 1 bytes"), std::string::npos);
}

TEST(TreeWalk, MissingRootIsAnError) {
  testing::TempDir dir;
  EXPECT_EQ(WalkTree(dir / "nope", Usage::kTraining).status().code(), Status::Code::kNotFound);
  Write(dir / "file", "x");
  EXPECT_EQ(WalkTree(dir / "file", Usage::kTraining).status().code(), Status::Code::kInvalidArgument);
}

TEST(TreeWalk, TwoWalksAreEqual) {
  testing::TempDir dir;
  MakeTree(dir.path());
  auto a = WalkTree(dir.path(), Usage::kTraining);
  auto b = WalkTree(dir.path(), Usage::kTraining);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->files.size(), b->files.size());
  for (size_t i = 0; i < a->files.size(); ++i) EXPECT_EQ(a->files[i].path, b->files[i].path);
  EXPECT_EQ(a->dirs, b->dirs);
}

}  // namespace
}  // namespace podbench::submission
