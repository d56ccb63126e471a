#include "results/run_set.h"

#include <cctype>
#include <charconv>
#include <string>

namespace podbench::results {
namespace {

bool ParseId(std::string_view s, int64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out > 0;
}

bool LooksNumeric(std::string_view s) {
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != ',' && c != '-' && c != ' ') {
      return false;
    }
  }
  return true;
}

}  // namespace

Result<RunFilter> ParseRunSet(std::string_view spec) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("run set '" + std::string(spec) + "': " + why +
                                   " (expected ids like 3,4,5 or 3-7, label:NAME or git:PREFIX)");
  };
  RunFilter f;
  if (spec.empty()) return bad("empty");
  if (spec.starts_with("label:")) {
    f.label = spec.substr(6);
    if (f.label.empty()) return bad("empty label");
    return f;
  }
  if (spec.starts_with("git:")) {
    f.git_hash = spec.substr(4);
    if (f.git_hash.empty()) return bad("empty git hash prefix");
    return f;
  }
  if (!LooksNumeric(spec)) {
    if (spec.find(':') != std::string_view::npos) return bad("unknown selector");
    f.label = spec;
    return f;
  }
  size_t pos = 0;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    std::string_view item = spec.substr(pos, comma == std::string_view::npos ? spec.npos : comma - pos);
    size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      int64_t id = 0;
      if (!ParseId(item, &id)) return bad("'" + std::string(item) + "' is not a run id");
      f.ids.push_back(id);
    } else {
      int64_t lo = 0, hi = 0;
      if (!ParseId(item.substr(0, dash), &lo) || !ParseId(item.substr(dash + 1), &hi) || lo > hi) {
        return bad("'" + std::string(item) + "' is not an id range LOW-HIGH");
      }
      f.id_ranges.emplace_back(lo, hi);
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return f;
}

}  // namespace podbench::results
