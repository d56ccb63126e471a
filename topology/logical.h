// Logical topology: the view a collective sees of a slice.
//
// Replicas are k contiguous cores (k = cores per replica, > 1 for spatial
// partitioning); replica groups are g contiguous replicas (distributed batch
// norm). Every group covers a rectangle of chips: either part of one chip,
// a run of whole chips inside one row, or whole rows. A collective runs in
// every group at once; members of a group are its cores.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "topology/slice.h"

namespace podbench::topology {

struct Group {
  int x0 = 0, y0 = 0, w = 1, h = 1;  // chip rectangle
  int local_begin = 0;               // member cores of each chip: locals [local_begin, +members_per_chip)
  int members_per_chip = 1;
  int first_core = 0;                // members are cores [first_core, first_core + size)
  int size = 1;                      // member cores
};

class LogicalTopology {
 public:
  // One group: every core of the slice, one core per replica.
  static LogicalTopology WholeSlice(const Slice& slice);
  // Groups of `group_replicas` replicas of `cores_per_replica` cores.
  // InvalidArgument unless both divide evenly and each group is a rectangle
  // of chips as described above.
  static Result<LogicalTopology> ReplicaGroups(const Slice& slice, int cores_per_replica,
                                               int group_replicas);

  const Slice& slice() const { return *slice_; }
  const Torus& torus() const { return slice_->torus(); }
  int cores_per_replica() const { return cores_per_replica_; }
  int num_replicas() const { return torus().num_cores() / cores_per_replica_; }
  const std::vector<Group>& groups() const { return groups_; }

  // Chips of `g` in ring order: a snake (boustrophedon) over the rectangle's
  // rows, starting at (x0, y0).
  std::vector<int> SnakeChips(const Group& g) const;
  // Chips of row `row` (0-based inside the rectangle) in +X order.
  std::vector<int> RowChips(const Group& g, int row) const;
  // Chips of column `col` in +Y order.
  std::vector<int> ColumnChips(const Group& g, int col) const;
  // The core that represents `chip` in chip-level phases (its first member).
  int Leader(const Group& g, int chip) const {
    return torus().CoreOf(chip, g.local_begin);
  }

 private:
  LogicalTopology(const Slice* slice, int k, std::vector<Group> groups)
      : slice_(slice), cores_per_replica_(k), groups_(std::move(groups)) {}
  const Slice* slice_;  // not owned; REQUIRES: outlives this
  int cores_per_replica_;
  std::vector<Group> groups_;
};

}  // namespace podbench::topology
