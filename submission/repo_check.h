// The repository check, as mlperf_logging.repo_checker (4.1.59) does it on a
// submitter's tree: names git handles badly (a file or folder name starting
// with "." or holding a space), files over 50 MiB, and broken symbolic links.
// Podbench also fails links that leave the tree (the walk never follows them);
// the official checker accepts a link whose target exists anywhere.
#pragma once

#include <string>
#include <vector>

#include "submission/tree.h"

namespace podbench::submission {

struct RepoCheckResult {
  bool pass = true;
  std::vector<std::string> bad_names;      // relative paths, sorted
  std::vector<std::string> large_files;    // relative paths, sorted
  std::vector<TreeProblem> link_problems;  // broken links and links leaving the tree
};

inline constexpr int64_t kRepoFileSizeLimit = int64_t{50} * 1024 * 1024;

RepoCheckResult CheckRepository(const Tree& tree);

}  // namespace podbench::submission
