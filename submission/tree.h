// The walk of one submitter's tree, as the official MLPerf package checker
// sees it, done safely: a submission tree is untrusted input.
//
// Layout (training): systems/<system>.json, results/<system>/<benchmark>/
// result_*.txt, benchmarks/<benchmark>/...; hpc adds a scaling level:
// results/<system>/<strong|weak>/<benchmark>/. Everything else is listed as an
// extra file.
//
// Contract (stable: `podbench package`, `rcp` and `summarize` build on it):
//   - Nothing is ever written into the tree, and nothing outside it is read.
//   - Symbolic links are never followed by the walk. A link whose target
//     resolves outside the tree, or does not resolve, is an error problem; a
//     link to a file inside the tree is listed as that file (Entry::symlink),
//     and ReadTreeFile reads it only after checking again where it points; a
//     link to a folder inside the tree is a warning and is not descended.
//   - Depth (folders below the root), entry count and the size of a file that
//     is read are bounded (WalkLimits); going past a bound is a problem with a
//     message naming the path and the bound, never a crash or a silent cut.
//   - The result depends only on the tree: lists are sorted by path (byte
//     order), so two walks of the same tree give equal Trees.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"

namespace podbench::submission {

struct WalkLimits {
  int max_depth = 24;                             // folders below the root
  int64_t max_entries = 500'000;                  // files + folders + links
  int64_t max_file_bytes = int64_t{1} << 30;      // largest file ReadTreeFile reads
};

enum class Severity { kError, kWarning };

enum class ProblemKind {
  kLinkBroken,     // a symbolic link that does not resolve (error)
  kLinkOutside,    // a symbolic link that resolves outside the tree (error)
  kLinkToFolder,   // a link to a folder inside the tree, not descended (warning)
  kLinkToOther,    // a link to a device, pipe or socket (error)
  kSpecialFile,    // a device, pipe or socket (error)
  kTooDeep,        // a folder past WalkLimits::max_depth (error)
  kTooManyEntries, // the walk stopped at WalkLimits::max_entries (error)
  kUnreadable,     // a folder that cannot be listed, an entry that cannot be stat'ed (error)
};

// Something wrong with the tree itself (not with a log's content).
struct TreeProblem {
  Severity severity = Severity::kError;
  ProblemKind kind = ProblemKind::kUnreadable;
  std::string path;     // relative to the root, '/'-separated ("" = the root)
  std::string message;  // what is wrong, naming the bound or the link target
};

struct Entry {
  std::string path;      // relative to the root, '/'-separated
  int64_t bytes = 0;     // size (of the target, for a link inside the tree)
  bool symlink = false;  // a link to a regular file inside the tree
};

// results/<system>/[<scaling>/]<benchmark>/: one benchmark's result folder.
struct BenchmarkDir {
  std::string system;
  std::string scaling;    // hpc: "strong" or "weak" (or whatever folder is there); "" for training
  std::string benchmark;  // the folder name, as found (may be unknown to the rules)
  std::string path;       // relative to the root
  std::vector<Entry> result_files;  // result_*.txt directly in the folder, sorted
  std::vector<Entry> other_files;   // every other file directly in the folder, sorted
  std::vector<std::string> subdirs; // folders directly in it (e.g. power/), relative paths
};

struct Tree {
  std::filesystem::path root;       // absolute, canonical
  std::vector<Entry> files;         // every file in the tree, sorted
  std::vector<std::string> dirs;    // every folder below the root, sorted
  std::vector<Entry> system_files;  // systems/*.json, sorted
  std::vector<std::string> systems_other;   // other files directly in systems/
  std::vector<BenchmarkDir> benchmark_dirs; // sorted by path
  // results/ entries that are not at a benchmark folder's level (files
  // directly in results/ or results/<system>/, for training), sorted.
  std::vector<std::string> results_misplaced;
  std::vector<std::string> benchmark_sources;  // benchmarks/<name> folders, sorted
  // Files outside systems/, results/ and benchmarks/, sorted.
  std::vector<std::string> extra_files;
  std::vector<TreeProblem> problems;
  bool has_results_dir = false;
  bool has_systems_dir = false;
  bool has_benchmarks_dir = false;

  bool HasErrors() const;
  // The system description of `system` ("systems/<system>.json"), or null.
  const Entry* SystemFile(const std::string& system) const;
};

enum class Usage { kTraining, kHpc };

// Walks `root`. An error status only when the root itself cannot be walked
// (missing, not a folder, unreadable); everything below it is reported in
// Tree::problems.
Result<Tree> WalkTree(const std::filesystem::path& root, Usage usage, const WalkLimits& limits = {});

// Reads a file of the walked tree, at most `max_bytes` (a bigger file is an
// error naming its size and the bound). The file is opened without following a
// final link unless the walk found a link inside the tree; its path is checked
// again to lie inside the root, and it must be a regular file.
Result<std::string> ReadTreeFile(const Tree& tree, const std::string& relative_path, int64_t max_bytes);

// The "file: message" form of a problem, as package and repo checks print it.
std::string FormatProblem(const TreeProblem& p);

}  // namespace podbench::submission
