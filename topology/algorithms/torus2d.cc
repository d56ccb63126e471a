// The 2-D torus all-reduce of Kumar et al. 2019 / Mikami et al. 2018:
// reduce-scatter along X, reduce-scatter along Y on the 1/X shard, all-gather
// along Y, all-gather along X. Variants: pipelined in chunks (chunk c+1's X
// phases overlap chunk c's Y phases), and bidirectional (half the payload
// goes X-first on + rings, the other half Y-first on - rings, so all four
// links of a chip carry data at once).
#include <algorithm>

#include "topology/algorithm.h"
#include "topology/algorithms/common.h"

namespace podbench::topology::algorithms {
namespace {

struct Plan {
  ElementRange region;
  bool x_first = true;
  bool reverse = false;
};

class Torus2dAllReduce final : public CollectiveAlgorithm {
 public:
  enum class Variant { kPlain, kPipelined, kBidirectional };
  Torus2dAllReduce(Variant v, int chunks) : variant_(v), chunks_(chunks) {}

  std::string_view name() const override {
    switch (variant_) {
      case Variant::kPlain: return "torus2d";
      case Variant::kPipelined: return "torus2d_pipelined";
      case Variant::kBidirectional: return "torus2d_bidir";
    }
    return "";
  }
  std::string_view description() const override {
    switch (variant_) {
      case Variant::kPlain: return "2-D torus all-reduce: RS-X, RS-Y, AG-Y, AG-X";
      case Variant::kPipelined: return "2-D torus all-reduce pipelined in chunks (default 4)";
      case Variant::kBidirectional:
        return "2-D torus all-reduce, half X-first on + rings, half Y-first on - rings";
    }
    return "";
  }
  CollectiveKind kind() const override { return CollectiveKind::kAllReduce; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Group& g = lt.groups().front();
    const int streams = variant_ == Variant::kPlain ? 1 : variant_ == Variant::kBidirectional ? 2 : chunks_;
    const double b = bytes / streams;
    double worst = 0, x_busy = 0, y_busy = 0;
    for (int k = 0; k < (variant_ == Variant::kBidirectional ? 2 : 1); ++k) {
      const bool rev = k == 1;
      std::vector<int> row = lt.RowChips(g, 0), col = lt.ColumnChips(g, 0);
      if (rev) {
        std::reverse(row.begin(), row.end());
        std::reverse(col.begin(), col.end());
      }
      const double w = g.w, h = g.h;
      // X-first: X phases move b / w per step, Y phases b / (w h); Y-first the other way.
      const double xb = rev ? b / (w * h) : b / w;
      const double yb = rev ? b / h : b / (w * h);
      const double tx = RingChainTime(lt.torus(), row, g.w - 1, xb);
      const double ty = RingChainTime(lt.torus(), col, g.h - 1, yb);
      worst = std::max(worst, 2 * tx + 2 * ty);
      // Time one chunk holds the X (Y) links: its bytes only, since the
      // next chunk's messages fill the latency gaps.
      x_busy = 2 * (g.w - 1) * xb * lt.torus().ici().beta();
      y_busy = 2 * (g.h - 1) * yb * lt.torus().ici().beta();
    }
    double rings = worst;
    if (variant_ == Variant::kPipelined) rings += (chunks_ - 1) * std::max(x_busy, y_busy);
    return LocalReduceTime(lt, bytes) + rings + LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    std::vector<Plan> plans;
    switch (variant_) {
      case Variant::kPlain: plans.push_back({{0, elements}, true, false}); break;
      case Variant::kPipelined:
        for (int c = 0; c < chunks_; ++c) plans.push_back({Part({0, elements}, chunks_, c), true, false});
        break;
      case Variant::kBidirectional:
        plans.push_back({Part({0, elements}, 2, 0), true, false});
        plans.push_back({Part({0, elements}, 2, 1), false, true});
        break;
    }
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    s.stages.push_back(LocalReduceStage(lt, elements));
    Stage rings;
    for (const Plan& plan : plans) {
      Stream st;
      AddPhases(lt, plan, &st);
      if (st.num_steps() > 0) rings.streams.push_back(std::move(st));
    }
    s.stages.push_back(std::move(rings));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }

 private:
  // RS along the first dimension, RS along the second on the shard, AG along
  // the second, AG along the first.
  static void AddPhases(const LogicalTopology& lt, const Plan& plan, Stream* st) {
    std::vector<Ring> outer, inner;
    for (const Group& g : lt.groups()) {
      const int n_outer = plan.x_first ? g.h : g.w;  // rings of the first phase
      const int len = plan.x_first ? g.w : g.h;      // their length
      for (int i = 0; i < n_outer; ++i) {
        outer.push_back({Leaders(lt, g, plan.x_first ? lt.RowChips(g, i) : lt.ColumnChips(g, i), plan.reverse),
                         plan.region, {}});
      }
      // After the first phase the chip at position r of its ring owns
      // Part(region, len, r); the second-dimension ring through that
      // position works on it.
      for (int pos = 0; pos < len; ++pos) {
        const int idx = plan.reverse ? len - 1 - pos : pos;  // rectangle index of that position
        inner.push_back({Leaders(lt, g, plan.x_first ? lt.ColumnChips(g, idx) : lt.RowChips(g, idx),
                                 plan.reverse),
                         Part(plan.region, len, pos), {}});
      }
    }
    AddRingReduceScatter(outer, st);
    AddRingReduceScatter(inner, st);
    AddRingAllGather(inner, st);
    AddRingAllGather(outer, st);
  }

  Variant variant_;
  int chunks_;
};

}  // namespace

void RegisterTorus2dAlgorithms(AlgorithmRegistry& registry) {
  using V = Torus2dAllReduce::Variant;
  registry.Register("torus2d", "2-D torus all-reduce: RS-X, RS-Y, AG-Y, AG-X",
                    [](const AlgorithmOptions&) { return std::make_unique<Torus2dAllReduce>(V::kPlain, 1); });
  registry.Register("torus2d_pipelined", "2-D torus all-reduce pipelined in chunks (default 4)",
                    [](const AlgorithmOptions& o) {
                      return std::make_unique<Torus2dAllReduce>(V::kPipelined, o.chunks > 0 ? o.chunks : 4);
                    });
  registry.Register("torus2d_bidir", "2-D torus all-reduce, half X-first on + rings, half Y-first on - rings",
                    [](const AlgorithmOptions&) { return std::make_unique<Torus2dAllReduce>(V::kBidirectional, 2); });
}

}  // namespace podbench::topology::algorithms
