// 2-D torus reduce-scatter and all-gather alone, for weight-update sharding
// (Kumar et al. 2019, Ying et al. 2018): the two halves of the 2-D
// all-reduce, with the optimizer update running on a 1/N shard in between.
//
// Reduce-scatter: the chip's cores reduce into its leader, ring RS along Y
// (columns; row position y ends with the elements of the members in row y),
// ring RS along X on that 1/Y-sized piece (chip x of row y ends with its own
// members' elements), then the leader scatters each member's shard. The
// all-gather runs the same backwards: members hand their shard to the
// leader, AG along X, AG along Y, leader copies the whole buffer to the other
// members.
//
// Y first (the all-reduce `torus2d` goes X first) because then every
// intermediate piece is a run of consecutive members, and each core ends
// with the shard ShardOfCore (collectives.h) names: member i owns part i in
// core order. Either order moves the same bytes over the same number of
// hops: (H-1)/H + (W-1)/(W H) = (W-1)/W + (H-1)/(W H) of the buffer per chip.
#include <algorithm>

#include "topology/algorithm.h"
#include "topology/algorithms/common.h"

namespace podbench::topology::algorithms {
namespace {

// Column rings (first phase: position y owns the shards of row y) and row
// rings (second phase: position x owns the shard of chip x) of every group.
struct ShardRings {
  std::vector<Ring> columns, rows;
};

ShardRings MakeShardRings(const LogicalTopology& lt, uint64_t elements) {
  ShardRings out;
  for (const Group& g : lt.groups()) {
    const int row_members = g.w * g.members_per_chip;
    for (int x = 0; x < g.w; ++x) {
      Ring ring{Leaders(lt, g, lt.ColumnChips(g, x), false), {0, elements}, {}};
      for (int y = 0; y < g.h; ++y) ring.chunks.push_back(MembersShard(g, elements, y * row_members, row_members));
      out.columns.push_back(std::move(ring));
    }
    for (int y = 0; y < g.h; ++y) {
      const std::vector<int> chips = lt.RowChips(g, y);
      Ring ring{Leaders(lt, g, chips, false), MembersShard(g, elements, y * row_members, row_members), {}};
      for (int chip : chips) ring.chunks.push_back(ChipShard(lt, g, elements, chip));
      out.rows.push_back(std::move(ring));
    }
  }
  return out;
}

// Time of the two torus phases: Y moving bytes / H a step, X bytes / (W H).
double TorusPhasesTime(const LogicalTopology& lt, double bytes) {
  const Group& g = lt.groups().front();
  const double w = g.w, h = g.h;
  return RingChainTime(lt.torus(), lt.ColumnChips(g, 0), g.h - 1, bytes / h) +
         RingChainTime(lt.torus(), lt.RowChips(g, 0), g.w - 1, bytes / (w * h));
}

// Bytes of one member's shard (the average; shards differ by one element).
double MemberShardBytes(const LogicalTopology& lt, double bytes) {
  return bytes / lt.groups().front().size;
}

class Torus2dReduceScatter final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "torus2d_reduce_scatter"; }
  std::string_view description() const override {
    return "2-D torus reduce-scatter: RS-Y, RS-X on the 1/Y piece; core ends with its 1/N shard";
  }
  CollectiveKind kind() const override { return CollectiveKind::kReduceScatter; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    return LocalReduceTime(lt, bytes) + TorusPhasesTime(lt, bytes) +
           LocalCopyTime(lt, MemberShardBytes(lt, bytes));
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    s.stages.push_back(LocalReduceStage(lt, elements));
    const ShardRings rings = MakeShardRings(lt, elements);
    Stage torus;
    Stream st;
    AddRingReduceScatter(rings.columns, &st);
    AddRingReduceScatter(rings.rows, &st);
    if (st.num_steps() > 0) torus.streams.push_back(std::move(st));
    s.stages.push_back(std::move(torus));
    s.stages.push_back(ScatterShardsStage(lt, elements));
    return s;
  }
};

class Torus2dAllGather final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "torus2d_all_gather"; }
  std::string_view description() const override {
    return "2-D torus all-gather: AG-X, AG-Y; every core ends with every core's 1/N shard";
  }
  CollectiveKind kind() const override { return CollectiveKind::kAllGather; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    return LocalCopyTime(lt, MemberShardBytes(lt, bytes)) + TorusPhasesTime(lt, bytes) +
           LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    s.stages.push_back(GatherShardsStage(lt, elements));
    const ShardRings rings = MakeShardRings(lt, elements);
    Stage torus;
    Stream st;
    AddRingAllGather(rings.rows, &st);
    AddRingAllGather(rings.columns, &st);
    if (st.num_steps() > 0) torus.streams.push_back(std::move(st));
    s.stages.push_back(std::move(torus));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }
};

}  // namespace

void RegisterTorus2dShardedAlgorithms(AlgorithmRegistry& registry) {
  registry.Register("torus2d_reduce_scatter", std::string(Torus2dReduceScatter().description()),
                    [](const AlgorithmOptions&) { return std::make_unique<Torus2dReduceScatter>(); });
  registry.Register("torus2d_all_gather", std::string(Torus2dAllGather().description()),
                    [](const AlgorithmOptions&) { return std::make_unique<Torus2dAllGather>(); });
}

}  // namespace podbench::topology::algorithms
