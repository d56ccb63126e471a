#include "topology/algorithms/common.h"

#include <algorithm>
#include <cassert>

namespace podbench::topology::algorithms {

namespace {

Transfer Make(int src, int dst, ElementRange r, TransferOp op) {
  Transfer t;
  t.src = src;
  t.dst = dst;
  t.src_off = static_cast<uint32_t>(r.begin);
  t.dst_off = static_cast<uint32_t>(r.begin);
  t.count = static_cast<uint32_t>(r.end - r.begin);
  t.op = op;
  return t;
}

void AddRingPhase(const std::vector<Ring>& rings, Stream* stream, bool reduce) {
  if (rings.empty()) return;
  const int p = static_cast<int>(rings.front().cores.size());
  for (int s = 0; s < p - 1; ++s) {
    for (const Ring& ring : rings) {
      assert(static_cast<int>(ring.cores.size()) == p);
      for (int r = 0; r < p; ++r) {
        // Reduce-scatter: r sends chunk r-s-1 so position q ends owning chunk q.
        // All-gather: r forwards chunk r-s, its own at step 0.
        const int chunk = ((reduce ? r - s - 1 : r - s) % p + p) % p;
        stream->Add(Make(ring.cores[r], ring.cores[(r + 1) % p], ring.Chunk(chunk),
                         reduce ? TransferOp::kReduce : TransferOp::kCopy));
      }
    }
    stream->EndStep();
  }
}

}  // namespace

void AddRingReduceScatter(const std::vector<Ring>& rings, Stream* stream) {
  AddRingPhase(rings, stream, /*reduce=*/true);
}

void AddRingAllGather(const std::vector<Ring>& rings, Stream* stream) {
  AddRingPhase(rings, stream, /*reduce=*/false);
}

ElementRange MembersShard(const Group& g, uint64_t elements, int first, int count) {
  const ElementRange all{0, elements};
  const uint64_t n = static_cast<uint64_t>(g.size);
  return {Part(all, n, static_cast<uint64_t>(first)).begin,
          Part(all, n, static_cast<uint64_t>(first + count - 1)).end};
}

ElementRange ChipShard(const LogicalTopology& lt, const Group& g, uint64_t elements, int chip) {
  return MembersShard(g, elements, lt.Leader(g, chip) - g.first_core, g.members_per_chip);
}

std::vector<ElementRange> AllShards(const LogicalTopology& lt, uint64_t elements) {
  std::vector<ElementRange> out(lt.torus().num_cores());
  for (const Group& g : lt.groups()) {
    for (int i = 0; i < g.size; ++i) out[g.first_core + i] = MembersShard(g, elements, i, 1);
  }
  return out;
}

namespace {

// Copies each non-leader member's shard between it and its chip's leader.
Stage ShardCopyStage(const LogicalTopology& lt, uint64_t elements, bool to_members) {
  Stage stage;
  Stream s;
  for (const Group& g : lt.groups()) {
    for (int chip : lt.SnakeChips(g)) {
      const int leader = lt.Leader(g, chip);
      for (int j = 1; j < g.members_per_chip; ++j) {
        const int core = lt.torus().CoreOf(chip, g.local_begin + j);
        const ElementRange r = MembersShard(g, elements, core - g.first_core, 1);
        s.Add(to_members ? Make(leader, core, r, TransferOp::kCopy) : Make(core, leader, r, TransferOp::kCopy));
      }
    }
  }
  s.EndStep();
  if (s.num_steps() > 0) stage.streams.push_back(std::move(s));
  return stage;
}

}  // namespace

Stage ScatterShardsStage(const LogicalTopology& lt, uint64_t elements) {
  return ShardCopyStage(lt, elements, /*to_members=*/true);
}

Stage GatherShardsStage(const LogicalTopology& lt, uint64_t elements) {
  return ShardCopyStage(lt, elements, /*to_members=*/false);
}

std::vector<int> Leaders(const LogicalTopology& lt, const Group& g, std::vector<int> chips, bool reverse) {
  if (reverse) std::reverse(chips.begin(), chips.end());
  for (int& c : chips) c = lt.Leader(g, c);
  return chips;
}

Stage LocalReduceStage(const LogicalTopology& lt, uint64_t elements) {
  Stage stage;
  const Torus& t = lt.torus();
  Stream s;
  const int m = lt.groups().front().members_per_chip;
  for (int j = 1; j < m; ++j) {
    for (const Group& g : lt.groups()) {
      for (int chip : lt.SnakeChips(g)) {
        s.Add(Make(t.CoreOf(chip, g.local_begin + j), lt.Leader(g, chip), {0, elements},
                   TransferOp::kReduce));
      }
    }
    s.EndStep();
  }
  if (s.num_steps() > 0) stage.streams.push_back(std::move(s));
  return stage;
}

Stage LocalBroadcastStage(const LogicalTopology& lt, uint64_t elements) {
  Stage stage;
  const Torus& t = lt.torus();
  Stream s;
  for (const Group& g : lt.groups()) {
    for (int chip : lt.SnakeChips(g)) {
      for (int j = 1; j < g.members_per_chip; ++j) {
        s.Add(Make(lt.Leader(g, chip), t.CoreOf(chip, g.local_begin + j), {0, elements},
                   TransferOp::kCopy));
      }
    }
  }
  s.EndStep();
  if (s.num_steps() > 0) stage.streams.push_back(std::move(s));
  return stage;
}

double RingChainTime(const Torus& t, const std::vector<int>& ring_chips, int steps, double bytes) {
  const int p = static_cast<int>(ring_chips.size());
  if (p <= 1 || steps <= 0) return 0.0;
  std::vector<int> hops(p);
  long total = 0;
  for (int i = 0; i < p; ++i) {
    hops[i] = t.Hops(ring_chips[i], ring_chips[(i + 1) % p]);
    total += hops[i];
  }
  const long full = steps / p;
  const int rest = steps % p;
  long best = 0;
  if (rest > 0) {
    long window = 0;
    for (int i = 0; i < rest; ++i) window += hops[i];
    best = window;
    for (int i = 1; i < p; ++i) {
      window += hops[(i + rest - 1) % p] - hops[i - 1];
      best = std::max(best, window);
    }
  }
  const LinkSpec& link = t.ici();
  return steps * bytes * link.beta() + link.latency_s * double(full * total + best);
}

double LocalReduceTime(const LogicalTopology& lt, double bytes) {
  const int m = lt.groups().front().members_per_chip;
  const LinkSpec& l = lt.torus().core_link();
  return (m - 1) * (l.latency_s + bytes * l.beta());
}

double LocalCopyTime(const LogicalTopology& lt, double bytes) {
  const int m = lt.groups().front().members_per_chip;
  const LinkSpec& l = lt.torus().core_link();
  return m > 1 ? l.latency_s + bytes * l.beta() : 0.0;
}

}  // namespace podbench::topology::algorithms
