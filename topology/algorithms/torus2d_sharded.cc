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
//
// Bidirectional variants (as torus2d_bidir for the all-reduce): every ring
// chunk is split in two; + rings move the low halves, - rings the high
// halves, so both directions of every link carry data and each phase takes
// about half the time. The layout stays that of ShardOfCore.
#include <algorithm>

#include "topology/algorithm.h"
#include "topology/algorithms/common.h"

namespace podbench::topology::algorithms {
namespace {

// Which part of the data a set of rings carries: all of it in the + ring
// direction, or (bidirectional) the low half of every chunk on + rings or
// the high half on - rings, so both directions of every link carry data.
enum class Half { kAll, kLowPlus, kHighMinus };

// Column rings (first phase: position y owns the shards of row y) and row
// rings (second phase: position x owns the shard of chip x) of every group.
struct ShardRings {
  std::vector<Ring> columns, rows;
};

Ring MakeRing(const LogicalTopology& lt, const Group& g, const std::vector<int>& chips,
              std::vector<ElementRange> chunks, Half half) {
  const bool minus = half == Half::kHighMinus;
  if (half != Half::kAll) {
    for (ElementRange& c : chunks) c = Part(c, 2, minus ? 1 : 0);
  }
  if (minus) std::reverse(chunks.begin(), chunks.end());  // chunks follow the reversed cores
  return Ring{Leaders(lt, g, chips, minus), {0, 0}, std::move(chunks)};
}

ShardRings MakeShardRings(const LogicalTopology& lt, uint64_t elements, Half half) {
  ShardRings out;
  for (const Group& g : lt.groups()) {
    const int row_members = g.w * g.members_per_chip;
    std::vector<ElementRange> row_shards;
    for (int y = 0; y < g.h; ++y) row_shards.push_back(MembersShard(g, elements, y * row_members, row_members));
    for (int x = 0; x < g.w; ++x) out.columns.push_back(MakeRing(lt, g, lt.ColumnChips(g, x), row_shards, half));
    for (int y = 0; y < g.h; ++y) {
      const std::vector<int> chips = lt.RowChips(g, y);
      std::vector<ElementRange> chip_shards;
      for (int chip : chips) chip_shards.push_back(ChipShard(lt, g, elements, chip));
      out.rows.push_back(MakeRing(lt, g, chips, std::move(chip_shards), half));
    }
  }
  return out;
}

std::vector<Half> Halves(bool bidir) {
  return bidir ? std::vector<Half>{Half::kLowPlus, Half::kHighMinus} : std::vector<Half>{Half::kAll};
}

// A stage with one stream per half running `phase` (RS or AG) on `pick` rings.
template <typename Phase>
Stage PhaseStage(const std::vector<ShardRings>& per_half, std::vector<Ring> ShardRings::*pick, Phase phase) {
  Stage stage;
  for (const ShardRings& r : per_half) {
    Stream st;
    phase(r.*pick, &st);
    if (st.num_steps() > 0) stage.streams.push_back(std::move(st));
  }
  return stage;
}

// Time of the two torus phases: Y moving bytes / H a step, then X moving
// bytes / (W H); bidirectional: half of that on each direction, the slower
// direction sets each phase's time (the phases are separate stages).
double TorusPhasesTime(const LogicalTopology& lt, double bytes, bool bidir) {
  const Group& g = lt.groups().front();
  const double w = g.w, h = g.h, dirs = bidir ? 2 : 1;
  double ty = 0, tx = 0;
  for (int d = 0; d < dirs; ++d) {
    std::vector<int> col = lt.ColumnChips(g, 0), row = lt.RowChips(g, 0);
    if (d == 1) {
      std::reverse(col.begin(), col.end());
      std::reverse(row.begin(), row.end());
    }
    ty = std::max(ty, RingChainTime(lt.torus(), col, g.h - 1, bytes / h / dirs));
    tx = std::max(tx, RingChainTime(lt.torus(), row, g.w - 1, bytes / (w * h) / dirs));
  }
  return ty + tx;
}

// Bytes of one member's shard (the average; shards differ by one element).
double MemberShardBytes(const LogicalTopology& lt, double bytes) {
  return bytes / lt.groups().front().size;
}

class Torus2dReduceScatter final : public CollectiveAlgorithm {
 public:
  explicit Torus2dReduceScatter(bool bidir) : bidir_(bidir) {}
  std::string_view name() const override {
    return bidir_ ? "torus2d_bidir_reduce_scatter" : "torus2d_reduce_scatter";
  }
  std::string_view description() const override {
    return bidir_ ? "2-D torus reduce-scatter, half of every chunk on + rings, half on - rings"
                  : "2-D torus reduce-scatter: RS-Y, RS-X on the 1/Y piece; core ends with its 1/N shard";
  }
  CollectiveKind kind() const override { return CollectiveKind::kReduceScatter; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    return LocalReduceTime(lt, bytes) + TorusPhasesTime(lt, bytes, bidir_) +
           LocalCopyTime(lt, MemberShardBytes(lt, bytes));
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    std::vector<ShardRings> rings;
    for (Half h : Halves(bidir_)) rings.push_back(MakeShardRings(lt, elements, h));
    s.stages.push_back(LocalReduceStage(lt, elements));
    // Columns and rows are separate stages when bidirectional: a row ring's
    // chunks span both halves of the column phase's pieces.
    s.stages.push_back(PhaseStage(rings, &ShardRings::columns, AddRingReduceScatter));
    s.stages.push_back(PhaseStage(rings, &ShardRings::rows, AddRingReduceScatter));
    s.stages.push_back(ScatterShardsStage(lt, elements));
    return s;
  }

 private:
  bool bidir_;
};

class Torus2dAllGather final : public CollectiveAlgorithm {
 public:
  explicit Torus2dAllGather(bool bidir) : bidir_(bidir) {}
  std::string_view name() const override { return bidir_ ? "torus2d_bidir_all_gather" : "torus2d_all_gather"; }
  std::string_view description() const override {
    return bidir_ ? "2-D torus all-gather, half of every chunk on + rings, half on - rings"
                  : "2-D torus all-gather: AG-X, AG-Y; every core ends with every core's 1/N shard";
  }
  CollectiveKind kind() const override { return CollectiveKind::kAllGather; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    return LocalCopyTime(lt, MemberShardBytes(lt, bytes)) + TorusPhasesTime(lt, bytes, bidir_) +
           LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.owned = AllShards(lt, elements);
    std::vector<ShardRings> rings;
    for (Half h : Halves(bidir_)) rings.push_back(MakeShardRings(lt, elements, h));
    s.stages.push_back(GatherShardsStage(lt, elements));
    s.stages.push_back(PhaseStage(rings, &ShardRings::rows, AddRingAllGather));
    s.stages.push_back(PhaseStage(rings, &ShardRings::columns, AddRingAllGather));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }

 private:
  bool bidir_;
};

}  // namespace

void RegisterTorus2dShardedAlgorithms(AlgorithmRegistry& registry) {
  for (bool bidir : {false, true}) {
    const Torus2dReduceScatter rs(bidir);
    registry.Register(std::string(rs.name()), std::string(rs.description()),
                      [bidir](const AlgorithmOptions&) { return std::make_unique<Torus2dReduceScatter>(bidir); });
    const Torus2dAllGather ag(bidir);
    registry.Register(std::string(ag.name()), std::string(ag.description()),
                      [bidir](const AlgorithmOptions&) { return std::make_unique<Torus2dAllGather>(bidir); });
  }
}

}  // namespace podbench::topology::algorithms
