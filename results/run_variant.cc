#include "results/run_variant.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace podbench::results {

std::string RunVariant::Describe() const {
  std::string out;
  if (!sets.empty()) {
    out = "set ";
    for (size_t i = 0; i < sets.size(); ++i) out += (i ? " " : "") + sets[i];
  }
  if (!system.empty()) out += (out.empty() ? "" : ", ") + ("system " + system);
  return out;
}

RunVariant VariantOf(const RunRecord& r) {
  RunVariant v;
  const nlohmann::json flags = nlohmann::json::parse(r.run.flags_json, nullptr, false);
  if (!flags.is_object()) {
    v.system = kSystemNotRecorded;
    return v;
  }
  if (auto it = flags.find("set"); it != flags.end() && it->is_array()) {
    for (const auto& s : *it) v.sets.push_back(s.is_string() ? s.get<std::string>() : s.dump());
    std::sort(v.sets.begin(), v.sets.end());
  }
  auto fp = flags.find("system_fingerprint");
  if (fp == flags.end() || !fp->is_string() || fp->get<std::string>().empty()) {
    v.system = kSystemNotRecorded;
  } else if (fp->get<std::string>() != "builtin") {
    auto file = flags.find("system");
    const std::string name = file != flags.end() && file->is_string() ? file->get<std::string>() : "?";
    v.system = name + " (" + fp->get<std::string>() + ")";
  }
  return v;
}

std::string ShortBuild(const std::string& git_hash) {
  if (git_hash.empty()) return "unknown build";
  const bool dirty = git_hash.size() > 6 && git_hash.ends_with("-dirty");
  std::string h = dirty ? git_hash.substr(0, git_hash.size() - 6) : git_hash;
  return h.substr(0, 10) + (dirty ? "-dirty" : "");
}

}  // namespace podbench::results
