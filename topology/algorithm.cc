#include "topology/algorithm.h"

#include <cassert>

namespace podbench::topology {

const char* KindName(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kAllReduce: return "all-reduce";
    case CollectiveKind::kReduceScatter: return "reduce-scatter";
    case CollectiveKind::kAllGather: return "all-gather";
    case CollectiveKind::kHaloExchange: return "halo-exchange";
    case CollectiveKind::kBroadcast: return "broadcast";
  }
  return "?";
}

AlgorithmRegistry& AlgorithmRegistry::Global() {
  static AlgorithmRegistry* registry = [] {
    static AlgorithmRegistry r;
    RegisterBuiltinAlgorithms(r);
    return &r;
  }();
  return *registry;
}

void AlgorithmRegistry::Register(std::string name, std::string description, AlgorithmFactory factory) {
  const bool inserted = entries_.emplace(std::move(name), Entry{std::move(description), std::move(factory)}).second;
  assert(inserted && "algorithm registered twice");
  (void)inserted;
}

Result<std::unique_ptr<CollectiveAlgorithm>> AlgorithmRegistry::Create(
    std::string_view name, const AlgorithmOptions& options) const {
  auto it = entries_.find(name);
  if (it == entries_.end()) {
    std::string known;
    for (const auto& [n, e] : entries_) known += (known.empty() ? "" : ", ") + n;
    return Status::NotFound("unknown collective algorithm '" + std::string(name) + "'; known: " + known);
  }
  return it->second.factory(options);
}

std::vector<std::string> AlgorithmRegistry::Names() const {
  std::vector<std::string> out;
  for (const auto& [n, e] : entries_) out.push_back(n);
  return out;
}

}  // namespace podbench::topology
