#include "submission/repo_check.h"

#include <algorithm>

namespace podbench::submission {
namespace {

bool GitUnfriendly(const std::string& rel) {
  size_t slash = rel.rfind('/');
  std::string base = slash == std::string::npos ? rel : rel.substr(slash + 1);
  return !base.empty() && (base[0] == '.' || base.find(' ') != std::string::npos);
}

}  // namespace

RepoCheckResult CheckRepository(const Tree& tree) {
  RepoCheckResult r;
  for (const auto& d : tree.dirs) {
    if (GitUnfriendly(d)) r.bad_names.push_back(d);
  }
  for (const auto& f : tree.files) {
    if (GitUnfriendly(f.path)) r.bad_names.push_back(f.path);
    if (!f.symlink && f.bytes > kRepoFileSizeLimit) r.large_files.push_back(f.path);
  }
  for (const auto& p : tree.problems) {
    if (p.kind == ProblemKind::kLinkBroken || p.kind == ProblemKind::kLinkOutside) {
      r.link_problems.push_back(p);
      if (GitUnfriendly(p.path)) r.bad_names.push_back(p.path);
    }
  }
  std::sort(r.bad_names.begin(), r.bad_names.end());
  r.bad_names.erase(std::unique(r.bad_names.begin(), r.bad_names.end()), r.bad_names.end());
  r.pass = r.bad_names.empty() && r.large_files.empty() && r.link_problems.empty();
  return r;
}

}  // namespace podbench::submission
