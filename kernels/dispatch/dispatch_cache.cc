#include "kernels/dispatch/dispatch_cache.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace podbench::kernels::dispatch {
namespace {

bool ParseFamily(const std::string& s, Family* f) {
  for (Family fam : kFamilies) {
    if (s == FamilyName(fam)) {
      *f = fam;
      return true;
    }
  }
  return false;
}

std::vector<std::string> SplitSpaces(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    const std::size_t j = line.find(' ', i);
    const std::size_t end = j == std::string::npos ? line.size() : j;
    out.push_back(line.substr(i, end - i));
    i = end + 1;
    if (j == std::string::npos) break;
  }
  return out;
}

bool Token(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return false;
  }
  return true;
}

std::string ErrnoText(const std::string& what, const std::string& path) {
  return what + " " + path + ": " + std::strerror(errno);
}

// Closes a descriptor (and so drops its flock) at scope exit.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

std::string FormatRecord(const CacheRecord& r) {
  std::string out = std::string(FamilyName(r.family)) + " " + r.cls;
  for (const auto& [name, secs] : r.seconds) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, secs);
    out += " " + name + " " + std::string(buf, res.ptr);
  }
  return out;
}

bool ParseRecord(const std::string& line, CacheRecord* r) {
  if (line.empty() || line.back() == ' ') return false;
  const std::vector<std::string> f = SplitSpaces(line);
  if (f.size() < 4 || f.size() % 2 != 0) return false;
  CacheRecord rec;
  if (!ParseFamily(f[0], &rec.family) || !Token(f[1])) return false;
  rec.cls = f[1];
  for (std::size_t i = 2; i < f.size(); i += 2) {
    double secs = 0;
    const std::string& t = f[i + 1];
    const auto res = std::from_chars(t.data(), t.data() + t.size(), secs);
    if (!Token(f[i]) || res.ec != std::errc() || res.ptr != t.data() + t.size() || !std::isfinite(secs) || secs < 0) {
      return false;
    }
    rec.seconds.emplace_back(f[i], secs);
  }
  *r = std::move(rec);
  return true;
}

Result<std::vector<CacheRecord>> ReadCacheFile(const std::string& path, int* skipped) {
  *skipped = 0;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::vector<CacheRecord>{};
  std::ifstream in(path);
  if (!in) return Status::IOError(ErrnoText("cannot read", path));
  std::string line;
  std::vector<CacheRecord> out;
  std::map<std::pair<int, std::string>, std::size_t> index;
  bool first = true, header_ok = false;
  while (std::getline(in, line)) {
    if (first) {
      first = false;
      header_ok = line == kCacheHeader;
      if (!header_ok) ++*skipped;
      continue;
    }
    if (!header_ok) {
      ++*skipped;
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    CacheRecord r;
    if (!ParseRecord(line, &r)) {
      ++*skipped;
      continue;
    }
    const auto key = std::make_pair(int(r.family), r.cls);
    auto it = index.find(key);
    if (it != index.end()) {
      out[it->second] = std::move(r);
    } else {
      index[key] = out.size();
      out.push_back(std::move(r));
    }
  }
  return out;
}

Status MergeIntoCacheFile(const std::string& path, const std::string& comment,
                          const std::vector<CacheRecord>& updates) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty()) fs::create_directories(dir, ec);
  if (ec) return Status::IOError("cannot create " + dir.string() + ": " + ec.message());
  Fd lock;
  const std::string lock_path = path + ".lock";
  lock.fd = open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock.fd < 0) return Status::IOError(ErrnoText("cannot open", lock_path));
  while (flock(lock.fd, LOCK_EX) != 0) {
    if (errno != EINTR) return Status::IOError(ErrnoText("cannot lock", lock_path));
  }
  int skipped = 0;
  auto existing = ReadCacheFile(path, &skipped);
  std::vector<CacheRecord> merged = existing.ok() ? std::move(*existing) : std::vector<CacheRecord>{};
  for (const CacheRecord& u : updates) {
    bool replaced = false;
    for (CacheRecord& r : merged) {
      if (r.family == u.family && r.cls == u.cls) {
        r = u;
        replaced = true;
        break;
      }
    }
    if (!replaced) merged.push_back(u);
  }
  std::ostringstream text;
  text << kCacheHeader << "\n";
  if (!comment.empty()) text << "# " << comment << "\n";
  for (const CacheRecord& r : merged) text << FormatRecord(r) << "\n";
  std::string tmp = path + ".XXXXXX";
  Fd out;
  out.fd = mkostemp(tmp.data(), O_CLOEXEC);
  if (out.fd < 0) return Status::IOError(ErrnoText("cannot create a temporary file beside", path));
  const std::string data = text.str();
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = write(out.fd, data.data() + done, data.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const Status st = Status::IOError(ErrnoText("cannot write", tmp));
      unlink(tmp.c_str());
      return st;
    }
    done += std::size_t(w);
  }
  fchmod(out.fd, 0644);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const Status st = Status::IOError(ErrnoText("cannot rename " + tmp + " to", path));
    unlink(tmp.c_str());
    return st;
  }
  return Status::Ok();
}

}  // namespace podbench::kernels::dispatch
