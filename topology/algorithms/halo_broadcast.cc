// Halo exchange between the spatial partitions of a replica, and a
// pipelined 2-D broadcast from each group's first core.
#include <algorithm>

#include "topology/algorithm.h"
#include "topology/algorithms/common.h"

namespace podbench::topology::algorithms {
namespace {

Transfer Move(int src, int dst, uint64_t src_off, uint64_t dst_off, uint64_t count) {
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.src_off = static_cast<uint32_t>(src_off);
  t.dst_off = static_cast<uint32_t>(dst_off);
  t.count = static_cast<uint32_t>(count);
  return t;
}

class HaloExchange final : public CollectiveAlgorithm {
 public:
  std::string_view name() const override { return "halo_exchange"; }
  std::string_view description() const override {
    return "halo exchange between neighbouring spatial partitions (k cores a replica), one step";
  }
  CollectiveKind kind() const override { return CollectiveKind::kHaloExchange; }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Torus& t = lt.torus();
    const int k = lt.cores_per_replica();
    const double halo = bytes / 4;
    double worst = 0;
    for (int i = 0; i + 1 < k; ++i) {  // replicas are alike; the first one stands for all
      for (auto [a, b] : {std::pair{i, i + 1}, std::pair{i + 1, i}}) {
        const int ca = t.ChipOfCore(a), cb = t.ChipOfCore(b);
        const LinkSpec& l = ca == cb ? t.core_link() : t.ici();
        const int hops = ca == cb ? 1 : t.Hops(ca, cb);
        worst = std::max(worst, hops * l.latency_s + halo * l.beta());
      }
    }
    return worst;
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    const uint64_t h = elements / 4;
    const int k = lt.cores_per_replica();
    Stream st;
    for (int first = 0; first < s.num_cores; first += k) {
      for (int i = 0; i < k; ++i) {
        if (i > 0) st.Add(Move(first + i, first + i - 1, h, 3 * h, h));      // to the bottom halo above
        if (i + 1 < k) st.Add(Move(first + i, first + i + 1, 2 * h, 0, h));  // to the top halo below
      }
    }
    st.EndStep();
    Stage stage;
    if (st.num_steps() > 0) stage.streams.push_back(std::move(st));
    s.stages.push_back(std::move(stage));
    return s;
  }
};

class Broadcast2d final : public CollectiveAlgorithm {
 public:
  explicit Broadcast2d(int chunks) : chunks_(chunks) {}
  std::string_view name() const override { return "broadcast"; }
  std::string_view description() const override {
    return "broadcast from each group's first core: chain along its row, then down every "
           "column, pipelined in chunks (default up to 128)";
  }
  CollectiveKind kind() const override { return CollectiveKind::kBroadcast; }

  int Chunks(uint64_t elements) const {
    const uint64_t c = chunks_ > 0 ? uint64_t(chunks_) : std::min<uint64_t>(128, elements);
    return static_cast<int>(std::max<uint64_t>(1, std::min(c, std::max<uint64_t>(1, elements))));
  }

  double AnalyticTime(const LogicalTopology& lt, double bytes) const override {
    const Group& g = lt.groups().front();
    const int c = Chunks(static_cast<uint64_t>(bytes / 2));  // chunk count of the smallest element type
    const double b = bytes / c;
    const Torus& t = lt.torus();
    double chain = 0;
    const std::vector<int> row = lt.RowChips(g, 0), col = lt.ColumnChips(g, 0);
    int hops = 0;
    for (size_t i = 0; i + 1 < row.size(); ++i) hops += t.Hops(row[i], row[i + 1]);
    for (size_t i = 0; i + 1 < col.size(); ++i) hops += t.Hops(col[i], col[i + 1]);
    const int edges = g.w - 1 + g.h - 1;
    if (edges > 0) chain = hops * t.ici().latency_s + (edges + c - 1) * b * t.ici().beta();
    return chain + LocalCopyTime(lt, bytes);
  }

  Result<Schedule> Build(const LogicalTopology& lt, uint64_t elements) const override {
    Schedule s;
    s.elements = elements;
    s.num_cores = lt.torus().num_cores();
    const int c = Chunks(elements);
    Stage chains;
    for (int k = 0; k < c; ++k) {
      const ElementRange r = Part({0, elements}, c, k);
      Stream st;
      int max_w = 0, max_h = 0;
      for (const Group& g : lt.groups()) {
        max_w = std::max(max_w, g.w);
        max_h = std::max(max_h, g.h);
      }
      for (int i = 0; i + 1 < max_w; ++i) {
        for (const Group& g : lt.groups()) {
          const std::vector<int> row = lt.RowChips(g, 0);
          st.Add(Move(lt.Leader(g, row[i]), lt.Leader(g, row[i + 1]), r.begin, r.begin, r.end - r.begin));
        }
        st.EndStep();
      }
      for (int i = 0; i + 1 < max_h; ++i) {
        for (const Group& g : lt.groups()) {
          for (int x = 0; x < g.w; ++x) {
            const std::vector<int> col = lt.ColumnChips(g, x);
            st.Add(Move(lt.Leader(g, col[i]), lt.Leader(g, col[i + 1]), r.begin, r.begin, r.end - r.begin));
          }
        }
        st.EndStep();
      }
      if (st.num_steps() > 0) chains.streams.push_back(std::move(st));
    }
    s.stages.push_back(std::move(chains));
    s.stages.push_back(LocalBroadcastStage(lt, elements));
    return s;
  }

 private:
  int chunks_;
};

}  // namespace

void RegisterHaloAndBroadcast(AlgorithmRegistry& registry) {
  registry.Register("halo_exchange", std::string(HaloExchange().description()),
                    [](const AlgorithmOptions&) { return std::make_unique<HaloExchange>(); });
  registry.Register("broadcast", std::string(Broadcast2d(0).description()),
                    [](const AlgorithmOptions& o) { return std::make_unique<Broadcast2d>(o.chunks); });
}

}  // namespace podbench::topology::algorithms

namespace podbench::topology {

namespace algorithms {
void RegisterRingAlgorithms(AlgorithmRegistry& registry);
void RegisterTorus2dAlgorithms(AlgorithmRegistry& registry);
void RegisterTorus2dShardedAlgorithms(AlgorithmRegistry& registry);
}  // namespace algorithms

void RegisterBuiltinAlgorithms(AlgorithmRegistry& registry) {
  algorithms::RegisterRingAlgorithms(registry);
  algorithms::RegisterTorus2dAlgorithms(registry);
  algorithms::RegisterTorus2dShardedAlgorithms(registry);
  algorithms::RegisterHaloAndBroadcast(registry);
}

}  // namespace podbench::topology
