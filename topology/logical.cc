#include "topology/logical.h"

namespace podbench::topology {

LogicalTopology LogicalTopology::WholeSlice(const Slice& slice) {
  const Torus& t = slice.torus();
  Group g;
  g.w = t.chips_x();
  g.h = t.chips_y();
  g.members_per_chip = t.cores_per_chip();
  g.size = t.num_cores();
  return LogicalTopology(&slice, 1, {g});
}

Result<LogicalTopology> LogicalTopology::ReplicaGroups(const Slice& slice, int cores_per_replica,
                                                       int group_replicas) {
  const Torus& t = slice.torus();
  const int cpc = t.cores_per_chip();
  const int row_cores = cpc * t.chips_x();
  if (cores_per_replica < 1 || group_replicas < 1) {
    return Status::InvalidArgument("cores per replica and replicas per group must be >= 1");
  }
  const long size = long(cores_per_replica) * group_replicas;
  if (size > t.num_cores() || t.num_cores() % size != 0) {
    return Status::InvalidArgument("a group of " + std::to_string(group_replicas) + " replicas x " +
                                   std::to_string(cores_per_replica) + " cores does not divide the " +
                                   std::to_string(t.num_cores()) + " cores of " + slice.name());
  }
  const int n = static_cast<int>(size);
  bool ok = n < cpc ? cpc % n == 0 : n <= row_cores ? row_cores % n == 0 && n % cpc == 0
                                                    : n % row_cores == 0;
  if (!ok) {
    return Status::InvalidArgument("a group of " + std::to_string(n) + " cores is not a rectangle of " +
                                   "chips in " + slice.name() + " (" + std::to_string(t.chips_x()) +
                                   " chips of " + std::to_string(cpc) + " cores a row)");
  }
  std::vector<Group> groups;
  for (int first = 0; first < t.num_cores(); first += n) {
    Group g;
    g.first_core = first;
    g.size = n;
    const int chip = t.ChipOfCore(first);
    g.x0 = t.ChipX(chip);
    g.y0 = t.ChipY(chip);
    if (n < cpc) {
      g.local_begin = t.LocalCore(first);
      g.members_per_chip = n;
    } else {
      g.members_per_chip = cpc;
      g.w = n <= row_cores ? n / cpc : t.chips_x();
      g.h = n <= row_cores ? 1 : n / row_cores;
    }
    groups.push_back(g);
  }
  return LogicalTopology(&slice, cores_per_replica, std::move(groups));
}

std::vector<int> LogicalTopology::SnakeChips(const Group& g) const {
  std::vector<int> out;
  out.reserve(size_t(g.w) * g.h);
  for (int r = 0; r < g.h; ++r) {
    for (int i = 0; i < g.w; ++i) {
      const int x = r % 2 == 0 ? g.x0 + i : g.x0 + g.w - 1 - i;
      out.push_back(torus().ChipAt(x, g.y0 + r));
    }
  }
  return out;
}

std::vector<int> LogicalTopology::RowChips(const Group& g, int row) const {
  std::vector<int> out;
  for (int i = 0; i < g.w; ++i) out.push_back(torus().ChipAt(g.x0 + i, g.y0 + row));
  return out;
}

std::vector<int> LogicalTopology::ColumnChips(const Group& g, int col) const {
  std::vector<int> out;
  for (int r = 0; r < g.h; ++r) out.push_back(torus().ChipAt(g.x0 + col, g.y0 + r));
  return out;
}

}  // namespace podbench::topology
