// 1-D ring collectives over the snake order of each group's chips:
// all-reduce (one direction or two counter-rotating rings), and
// reduce-scatter and all-gather alone (weight-update sharding).
#include <algorithm>

#include "topology/algorithm.h"
#include "topology/algorithms/common.h"

namespace podbench::topology::algorithms {
namespace {

std::vector<Ring> SnakeRings(const LogicalTopology& lt, ElementRange region, bool reverse) {
  std::vector<Ring> rings;
  for (const Group& g : lt.groups()) rings.push_back({Leaders(lt, g, lt.SnakeChips(g), reverse), region, {}});
  return rings;
}

class RingAllReduce final : public CollectiveAlgorithm {
 public:
  explicit RingAllReduce(bool bidirectional) : bidir_(bidirectional) {}
  std::string_view name() const override { return bidir_ ? "ring_bidir" : "ring"; }
  std::string_view description() const override {
    return bidir_ ? "1-D ring all-reduce, two counter-rotating rings with half the payload each"
                  : "1-D ring all-reduce (reduce-scatter + all-gather) over the snake order of chips";
  }
  CollectiveKind kind() const override { return CollectiveKind::kAllReduce; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Group& g = lt.groups().front();
    const std::vector<int> chips = lt.SnakeChips(g);
    const int p = static_cast<int>(chips.size());
    const int dirs = bidir_ ? 2 : 1;
    double ring = 0;
    for (int d = 0; d < dirs; ++d) {
      std::vector<int> order = chips;
      if (d == 1) std::reverse(order.begin(), order.end());
      ring = std::max(ring, RingChainTime(lt.torus(), order, 2 * (p - 1), bytes / dirs / p));
    }
    return LocalReduceTime(lt, bytes) + ring + LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.stages.push_back(LocalReduceStage(lt, elements));
    Stage rings;
    const int dirs = bidir_ ? 2 : 1;
    for (int d = 0; d < dirs; ++d) {
      Stream st;
      auto r = SnakeRings(lt, Part({0, elements}, dirs, d), d == 1);
      AddRingReduceScatter(r, &st);
      AddRingAllGather(r, &st);
      if (st.num_steps() > 0) rings.streams.push_back(std::move(st));
    }
    s.stages.push_back(std::move(rings));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }

 private:
  bool bidir_;
};

// The snake ring for reduce-scatter / all-gather alone: position r (chip r
// of the snake) works on its members' shards, so every core ends with
// ShardOfCore's range.
std::vector<Ring> ShardedSnakeRings(const LogicalTopology& lt, uint64_t elements) {
  std::vector<Ring> rings;
  for (const Group& g : lt.groups()) {
    Ring ring{Leaders(lt, g, lt.SnakeChips(g), false), {0, elements}, {}};
    for (int chip : lt.SnakeChips(g)) ring.chunks.push_back(ChipShard(lt, g, elements, chip));
    rings.push_back(std::move(ring));
  }
  return rings;
}

class RingReduceScatter final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "reduce_scatter"; }
  std::string_view description() const override {
    return "1-D ring reduce-scatter: each core ends with the sum of its 1/N shard";
  }
  CollectiveKind kind() const override { return CollectiveKind::kReduceScatter; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Group& g = lt.groups().front();
    const std::vector<int> chips = lt.SnakeChips(g);
    const double p = static_cast<double>(chips.size());
    return LocalReduceTime(lt, bytes) +
           RingChainTime(lt.torus(), chips, static_cast<int>(p) - 1, bytes / p) +
           LocalCopyTime(lt, bytes / p / g.members_per_chip);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    s.stages.push_back(LocalReduceStage(lt, elements));
    Stage ring;
    Stream st;
    AddRingReduceScatter(ShardedSnakeRings(lt, elements), &st);
    if (st.num_steps() > 0) ring.streams.push_back(std::move(st));
    s.stages.push_back(std::move(ring));
    s.stages.push_back(ScatterShardsStage(lt, elements));
    return s;
  }
};

class RingAllGather final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "all_gather"; }
  std::string_view description() const override {
    return "1-D ring all-gather: every core ends with the 1/N shards of all cores";
  }
  CollectiveKind kind() const override { return CollectiveKind::kAllGather; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Group& g = lt.groups().front();
    const std::vector<int> chips = lt.SnakeChips(g);
    const double p = static_cast<double>(chips.size());
    return LocalCopyTime(lt, bytes / p / g.members_per_chip) +
           RingChainTime(lt.torus(), chips, static_cast<int>(p) - 1, bytes / p) +
           LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    s.stages.push_back(GatherShardsStage(lt, elements));
    Stage ring;
    Stream st;
    AddRingAllGather(ShardedSnakeRings(lt, elements), &st);
    if (st.num_steps() > 0) ring.streams.push_back(std::move(st));
    s.stages.push_back(std::move(ring));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }
};

}  // namespace

void RegisterRingAlgorithms(AlgorithmRegistry& registry) {
  for (bool bidir : {false, true}) {
    RingAllReduce proto(bidir);
    registry.Register(std::string(proto.name()), std::string(proto.description()),
                      [bidir](const AlgorithmOptions&) { return std::make_unique<RingAllReduce>(bidir); });
  }
  registry.Register("reduce_scatter", std::string(RingReduceScatter().description()),
                    [](const AlgorithmOptions&) { return std::make_unique<RingReduceScatter>(); });
  registry.Register("all_gather", std::string(RingAllGather().description()),
                    [](const AlgorithmOptions&) { return std::make_unique<RingAllGather>(); });
}

}  // namespace podbench::topology::algorithms
