// Building blocks shared by the collective algorithms (private to topology/).
#pragma once

#include <cstdint>
#include <vector>

#include "topology/logical.h"
#include "topology/schedule.h"

namespace podbench::topology::algorithms {

// One ring: member cores in ring order, and the elements it works on.
struct Ring {
  std::vector<int> cores;
  ElementRange region;
  // The chunk ring position r ends up owning: chunks[r] when not empty
  // (REQUIRES: then one disjoint range per position), else Part(region, p, r).
  std::vector<ElementRange> chunks;

  ElementRange Chunk(int r) const {
    return chunks.empty() ? Part(region, cores.size(), static_cast<uint64_t>(r)) : chunks[r];
  }
};

// Appends p - 1 steps of ring reduce-scatter (all rings at once; all rings
// have the same length p). Afterwards position r holds Chunk(r) reduced over
// the ring.
void AddRingReduceScatter(const std::vector<Ring>& rings, Stream* stream);
// Appends p - 1 steps of ring all-gather: position r starts with Chunk(r);
// afterwards every position holds every chunk.
void AddRingAllGather(const std::vector<Ring>& rings, Stream* stream);

// The elements owned after a reduce-scatter by members [first, first + count)
// of `g` (member i is core g.first_core + i): the union of their ShardOfCore
// ranges, contiguous by construction.
ElementRange MembersShard(const Group& g, uint64_t elements, int first, int count);
// MembersShard of the members of `chip` (one chip of `g`).
ElementRange ChipShard(const LogicalTopology& lt, const Group& g, uint64_t elements, int chip);

// Stage in which every chip's leader copies each other member's shard to it.
Stage ScatterShardsStage(const LogicalTopology& lt, uint64_t elements);
// Stage in which every chip's non-leader members copy their shard to the leader.
Stage GatherShardsStage(const LogicalTopology& lt, uint64_t elements);
// ShardOfCore for every core.
std::vector<ElementRange> AllShards(const LogicalTopology& lt, uint64_t elements);

// Leader cores of `chips` of group `g`, in order; reversed when `reverse`.
std::vector<int> Leaders(const LogicalTopology& lt, const Group& g, std::vector<int> chips,
                         bool reverse);

// A stage in which every chip's other members reduce the whole buffer into
// its leader (members - 1 steps). Empty when groups have one member a chip.
Stage LocalReduceStage(const LogicalTopology& lt, uint64_t elements);
// A stage in which every chip's leader copies the whole buffer to its other members.
Stage LocalBroadcastStage(const LogicalTopology& lt, uint64_t elements);

// Alpha-beta helpers (seconds). No contention assumed.
// Time of `steps` consecutive steps of a ring over chips `ring_chips` moving
// `bytes` per edge a step: steps * bytes * beta + alpha * (the largest hop
// count of `steps` consecutive edges). A step needs the data of the step
// before, so the slowest chain of consecutive edges sets the time.
double RingChainTime(const Torus& t, const std::vector<int>& ring_chips, int steps, double bytes);
// Local reduce of `bytes` into the leader: (members - 1) core-link transfers in sequence.
double LocalReduceTime(const LogicalTopology& lt, double bytes);
// Local copy of `bytes` from the leader to the other members (in parallel).
double LocalCopyTime(const LogicalTopology& lt, double bytes);

}  // namespace podbench::topology::algorithms
