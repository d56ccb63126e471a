// The bodies of the submission fuzz targets, shared by the libFuzzer entry
// points (fuzz_system_desc.cc, fuzz_tree_walk.cc) and the smoke test that
// runs them in every build (fuzz_smoke_test.cc). Each aborts on a broken
// invariant, so a fuzzer reports it.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "submission/repo_check.h"
#include "submission/system_desc.h"
#include "submission/tree.h"

namespace podbench::submission::fuzz {

// Invariant: CheckSystemDesc never throws; a valid result has no reasons.
inline void SystemDesc(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* ruleset : {"1.0.0", "4.0.0", "4.1.0"}) {
    auto r = CheckSystemDesc(text, "fuzz.json", "training", ruleset);
    if (r.valid != r.errors.empty()) std::abort();
    (void)SystemDescSummaryLine(r);
  }
}

// Builds a small tree from the bytes (folders, files, links that point in,
// out and nowhere), then walks it. Invariants: the walk never lists a path
// outside the tree or one through a link to a folder; two walks are equal;
// reading any listed file stays bounded.
inline void TreeWalk(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  char tmpl[] = "/tmp/podbench-fuzz-tree-XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return;
  const fs::path base(tmpl);
  const fs::path root = base / "tree";
  std::error_code ec;
  fs::create_directory(root, ec);
  static const char* kNames[] = {"results", "systems", "benchmarks", "sys1", "bert", "result_0.txt", "result_1.txt",
                                 "a.json", ".hidden", "with space", "power", "weak", "strong", "x"};
  static const char* kTargets[] = {"..", "../..", "/", "/etc/passwd", "result_0.txt", "missing", ".", "../tree", "bert"};
  fs::path cwd = root;
  for (size_t i = 0; i + 1 < size && i < 256; i += 2) {
    const uint8_t op = data[i] % 6, arg = data[i + 1];
    const fs::path name = cwd / kNames[arg % (sizeof(kNames) / sizeof(kNames[0]))];
    switch (op) {
      case 0: fs::create_directory(name, ec); break;
      case 1: std::ofstream(name) << std::string(arg, 'x'); break;
      case 2: fs::create_symlink(kTargets[arg % (sizeof(kTargets) / sizeof(kTargets[0]))], name, ec); break;
      case 3: if (fs::is_directory(fs::symlink_status(name, ec))) cwd = name; break;
      case 4: if (cwd != root) cwd = cwd.parent_path(); break;
      case 5: fs::create_directories(name / "d" / "e", ec); break;
    }
  }
  WalkLimits limits;
  limits.max_depth = 6;
  limits.max_entries = 200;
  for (Usage usage : {Usage::kTraining, Usage::kHpc}) {
    auto a = WalkTree(root, usage, limits);
    auto b = WalkTree(root, usage, limits);
    if (!a.ok() || !b.ok()) std::abort();
    if (a->files.size() != b->files.size() || a->dirs != b->dirs) std::abort();
    for (const auto& f : a->files) {
      if (f.path.find("..") == 0 || f.path.find("/../") != std::string::npos || f.path.empty() || f.path[0] == '/') std::abort();
      auto text = ReadTreeFile(*a, f.path, 64);
      if (text.ok() && text->size() > 64) std::abort();
    }
    (void)CheckRepository(*a);
  }
  fs::remove_all(base, ec);
}

}  // namespace podbench::submission::fuzz
