#include "submission/tree.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace podbench::submission {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Split(const std::string& rel) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= rel.size()) {
    size_t slash = rel.find('/', start);
    if (slash == std::string::npos) slash = rel.size();
    parts.push_back(rel.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string Join(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (i) out += '/';
    out += parts[i];
  }
  return out;
}

// True when `p` (canonical) is `root` or lies below it.
bool Inside(const fs::path& root, const fs::path& p) {
  auto r = root.begin(), q = p.begin();
  for (; r != root.end(); ++r, ++q) {
    if (q == p.end() || *r != *q) return false;
  }
  return true;
}

// A name the official glob 'result_*.txt' matches (glob skips hidden names;
// these start with 'r' anyway).
bool IsResultFileName(const std::string& name) {
  return name.size() >= 11 && name.compare(0, 7, "result_") == 0 &&
         name.compare(name.size() - 4, 4, ".txt") == 0;
}

class Walker {
 public:
  Walker(const fs::path& root, const WalkLimits& limits, Tree* tree)
      : root_(root), limits_(limits), tree_(tree) {}

  void Walk(const fs::path& dir, const std::string& rel, int depth) {
    if (stopped_) return;
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::none, ec);
    if (ec) {
      Problem(Severity::kError, ProblemKind::kUnreadable, rel, "cannot list folder: " + ec.message());
      return;
    }
    // Collect then sort, so the walk order (and where a bound cuts) is stable.
    std::vector<fs::directory_entry> children;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      children.push_back(*it);
    }
    if (ec) Problem(Severity::kError, ProblemKind::kUnreadable, rel, "cannot list folder: " + ec.message());
    std::sort(children.begin(), children.end(),
              [](const auto& a, const auto& b) { return a.path().filename().string() < b.path().filename().string(); });
    for (const auto& child : children) {
      if (stopped_) return;
      if (++entries_ > limits_.max_entries) {
        Problem(Severity::kError, ProblemKind::kTooManyEntries, rel,
                "more than " + std::to_string(limits_.max_entries) +
                    " files and folders in the tree (the bound); the walk stopped here, later entries are not checked");
        stopped_ = true;
        return;
      }
      const std::string name = child.path().filename().string();
      const std::string child_rel = rel.empty() ? name : rel + "/" + name;
      fs::file_status st = child.symlink_status(ec);
      if (ec) {
        Problem(Severity::kError, ProblemKind::kUnreadable, child_rel, "cannot stat: " + ec.message());
        continue;
      }
      if (fs::is_symlink(st)) {
        Link(child.path(), child_rel, depth);
      } else if (fs::is_directory(st)) {
        Dir(child.path(), child_rel, depth + 1);
      } else if (fs::is_regular_file(st)) {
        std::error_code size_ec;
        auto size = fs::file_size(child.path(), size_ec);
        tree_->files.push_back({child_rel, size_ec ? 0 : static_cast<int64_t>(size), false});
      } else {
        Problem(Severity::kError, ProblemKind::kSpecialFile, child_rel, "not a regular file or folder (a device, pipe or socket); not read");
      }
    }
  }

 private:
  void Dir(const fs::path& dir, const std::string& rel, int depth) {
    if (depth > limits_.max_depth) {
      Problem(Severity::kError, ProblemKind::kTooDeep, rel,
              "folder nested " + std::to_string(depth) + " deep, deeper than the bound of " +
                  std::to_string(limits_.max_depth) + "; not walked");
      return;
    }
    tree_->dirs.push_back(rel);
    Walk(dir, rel, depth);
  }

  void Link(const fs::path& link, const std::string& rel, int /*depth*/) {
    std::error_code ec;
    fs::path target = fs::read_symlink(link, ec);
    const std::string shown = ec ? std::string("?") : target.string();
    fs::path resolved = fs::canonical(link, ec);
    if (ec) {
      Problem(Severity::kError, ProblemKind::kLinkBroken, rel, "broken symbolic link (to " + shown + "); not followed");
      return;
    }
    if (!Inside(root_, resolved)) {
      Problem(Severity::kError, ProblemKind::kLinkOutside, rel, "symbolic link leaves the tree (to " + shown + "); not followed");
      return;
    }
    fs::file_status st = fs::status(resolved, ec);
    if (!ec && fs::is_regular_file(st)) {
      auto size = fs::file_size(resolved, ec);
      tree_->files.push_back({rel, ec ? 0 : static_cast<int64_t>(size), true});
    } else if (!ec && fs::is_directory(st)) {
      Problem(Severity::kWarning, ProblemKind::kLinkToFolder, rel, "symbolic link to a folder inside the tree (" + shown + "); not descended");
    } else {
      Problem(Severity::kError, ProblemKind::kLinkToOther, rel, "symbolic link to something that is not a regular file (" + shown + "); not followed");
    }
  }

  void Problem(Severity s, ProblemKind kind, const std::string& rel, std::string msg) {
    tree_->problems.push_back({s, kind, rel, std::move(msg)});
  }

  fs::path root_;
  WalkLimits limits_;
  Tree* tree_;
  int64_t entries_ = 0;
  bool stopped_ = false;
};

// Sorts `files` into systems/, results/<...>/, benchmarks/ and extras.
void Classify(Usage usage, Tree* t) {
  const size_t bench_level = usage == Usage::kHpc ? 4 : 3;  // components of a benchmark folder's path
  for (const auto& d : t->dirs) {
    auto parts = Split(d);
    if (parts[0] == "results") {
      t->has_results_dir = true;
      if (parts.size() == bench_level) {
        BenchmarkDir b;
        b.system = parts[1];
        if (usage == Usage::kHpc) b.scaling = parts[2];
        b.benchmark = parts.back();
        b.path = d;
        t->benchmark_dirs.push_back(std::move(b));
      }
    } else if (parts[0] == "systems") {
      t->has_systems_dir = true;
    } else if (parts[0] == "benchmarks") {
      t->has_benchmarks_dir = true;
      if (parts.size() == 2) t->benchmark_sources.push_back(d);
    }
  }
  auto find_bench = [t](const std::string& path) -> BenchmarkDir* {
    auto it = std::lower_bound(t->benchmark_dirs.begin(), t->benchmark_dirs.end(), path,
                               [](const BenchmarkDir& b, const std::string& p) { return b.path < p; });
    return it != t->benchmark_dirs.end() && it->path == path ? &*it : nullptr;
  };
  for (const auto& d : t->dirs) {
    auto parts = Split(d);
    if (parts[0] == "results" && parts.size() == bench_level + 1) {
      if (BenchmarkDir* b = find_bench(Join(parts, bench_level))) b->subdirs.push_back(d);
    }
  }
  for (const auto& f : t->files) {
    auto parts = Split(f.path);
    if (parts.size() == 1) {
      t->extra_files.push_back(f.path);
    } else if (parts[0] == "systems") {
      const std::string& name = parts[1];
      bool json = parts.size() == 2 && name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0 && name[0] != '.';
      if (json) {
        t->system_files.push_back(f);
      } else {
        t->systems_other.push_back(f.path);
      }
    } else if (parts[0] == "results") {
      if (parts.size() < bench_level + 1) {
        t->results_misplaced.push_back(f.path);
        continue;
      }
      BenchmarkDir* b = find_bench(Join(parts, bench_level));
      if (b == nullptr) continue;  // below a folder that was not walked
      if (parts.size() == bench_level + 1 && IsResultFileName(parts.back())) {
        b->result_files.push_back(f);
      } else if (parts.size() == bench_level + 1) {
        b->other_files.push_back(f);
      }
      // Files deeper (power/..., for example) belong to the benchmark folder's
      // subfolders and are listed in Tree::files only.
    } else if (parts[0] == "benchmarks") {
      // source code: every file is allowed
    } else {
      t->extra_files.push_back(f.path);
    }
  }
}

}  // namespace

bool Tree::HasErrors() const {
  return std::any_of(problems.begin(), problems.end(), [](const TreeProblem& p) { return p.severity == Severity::kError; });
}

const Entry* Tree::SystemFile(const std::string& system) const {
  const std::string want = "systems/" + system + ".json";
  for (const auto& e : system_files) {
    if (e.path == want) return &e;
  }
  return nullptr;
}

Result<Tree> WalkTree(const fs::path& root, Usage usage, const WalkLimits& limits) {
  std::error_code ec;
  fs::file_status st = fs::status(root, ec);
  if (ec || !fs::exists(st)) return Status::NotFound(root.string() + ": no such folder");
  if (!fs::is_directory(st)) return Status::InvalidArgument(root.string() + ": not a folder (give a submitter's tree)");
  fs::path canon = fs::canonical(root, ec);
  if (ec) return Status::IOError(root.string() + ": " + ec.message());
  Tree tree;
  tree.root = canon;
  Walker walker(canon, limits, &tree);
  walker.Walk(canon, "", 0);
  std::sort(tree.files.begin(), tree.files.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });
  std::sort(tree.dirs.begin(), tree.dirs.end());
  Classify(usage, &tree);
  std::sort(tree.problems.begin(), tree.problems.end(),
            [](const TreeProblem& a, const TreeProblem& b) { return a.path < b.path; });
  return tree;
}

Result<std::string> ReadTreeFile(const Tree& tree, const std::string& relative_path, int64_t max_bytes) {
  auto it = std::lower_bound(tree.files.begin(), tree.files.end(), relative_path,
                             [](const Entry& e, const std::string& p) { return e.path < p; });
  if (it == tree.files.end() || it->path != relative_path) {
    return Status::NotFound(relative_path + ": not a file of the walked tree");
  }
  fs::path path = tree.root / relative_path;
  int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK;
  if (it->symlink) {
    std::error_code ec;
    fs::path resolved = fs::canonical(path, ec);
    if (ec) return Status::IOError(relative_path + ": " + ec.message());
    if (!Inside(tree.root, resolved)) {
      return Status::FailedPrecondition(relative_path + ": symbolic link now leaves the tree; not read");
    }
    path = resolved;
  }
  flags |= O_NOFOLLOW;
  int fd = ::open(path.c_str(), flags);
  if (fd < 0) return Status::IOError(relative_path + ": cannot open: " + std::strerror(errno));
  struct stat sb {};
  if (::fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    ::close(fd);
    return Status::FailedPrecondition(relative_path + ": not a regular file; not read");
  }
  if (sb.st_size > max_bytes) {
    ::close(fd);
    return Status::FailedPrecondition(relative_path + ": " + std::to_string(sb.st_size) + " bytes, larger than the bound of " +
                                      std::to_string(max_bytes) + " bytes; not read");
  }
  std::string data;
  data.resize(static_cast<size_t>(sb.st_size));
  size_t got = 0;
  while (got < data.size()) {
    ssize_t n = ::read(fd, data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  data.resize(got);
  return data;
}

std::string FormatProblem(const TreeProblem& p) {
  return (p.path.empty() ? std::string(".") : p.path) + ": " + p.message;
}

}  // namespace podbench::submission
