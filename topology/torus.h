// Physical topology: a 2-D torus (or mesh) of chips, each with cores, and the
// directed links between them.
//
// Chips are numbered row-major, chip = y * chips_x + x; cores are numbered
// chip-major, core = chip * cores_per_chip + local. Every chip has four
// outgoing ICI links (+X, -X, +Y, -Y); a link that would leave the grid in a
// dimension without wraparound, or a dimension of size 1, does not exist. Each
// ordered pair of distinct cores on one chip has an on-chip link. Link ids are
// dense in [0, num_links()).
#pragma once

#include <cstdint>
#include <vector>

#include "topology/system.h"

namespace podbench::topology {

enum class Dir : int { kPlusX = 0, kMinusX = 1, kPlusY = 2, kMinusY = 3 };

class Torus {
 public:
  // REQUIRES: chips_x, chips_y, cores_per_chip >= 1.
  Torus(int chips_x, int chips_y, bool wrap_x, bool wrap_y, int cores_per_chip, LinkSpec ici,
        LinkSpec core_link);

  int chips_x() const { return chips_x_; }
  int chips_y() const { return chips_y_; }
  bool wrap_x() const { return wrap_x_; }
  bool wrap_y() const { return wrap_y_; }
  int cores_per_chip() const { return cores_per_chip_; }
  int num_chips() const { return chips_x_ * chips_y_; }
  int num_cores() const { return num_chips() * cores_per_chip_; }
  const LinkSpec& ici() const { return ici_; }
  const LinkSpec& core_link() const { return core_link_; }

  int ChipAt(int x, int y) const { return y * chips_x_ + x; }
  int ChipX(int chip) const { return chip % chips_x_; }
  int ChipY(int chip) const { return chip / chips_x_; }
  int ChipOfCore(int core) const { return core / cores_per_chip_; }
  int LocalCore(int core) const { return core % cores_per_chip_; }
  int CoreOf(int chip, int local) const { return chip * cores_per_chip_ + local; }

  int num_links() const { return 4 * num_chips() + num_chips() * cores_per_chip_ * cores_per_chip_; }
  // The ICI link leaving `chip` in `dir`, or -1 when it does not exist.
  int IciLink(int chip, Dir dir) const;
  // The on-chip link from local core a to local core b of `chip`. REQUIRES: a != b.
  int CoreLink(int chip, int a, int b) const {
    return 4 * num_chips() + (chip * cores_per_chip_ + a) * cores_per_chip_ + b;
  }
  bool IsCoreLink(int link) const { return link >= 4 * num_chips(); }
  const LinkSpec& LinkParams(int link) const { return IsCoreLink(link) ? core_link_ : ici_; }
  // Number of existing ICI links (directed).
  int NumIciLinks() const;

  // The links a message from core `from` to core `to` crosses, in order:
  // dimension-order routing (X first, then Y), each dimension the shorter
  // way round when it wraps (ties go +). Within a chip: the on-chip link.
  // Between chips the message leaves from and arrives at the chip; the
  // cores' on-chip links are not used. Empty when from == to.
  void Route(int from, int to, std::vector<int32_t>* links) const;
  // ICI hops between two chips under Route.
  int Hops(int chip_a, int chip_b) const;

  // Links crossing the cut that halves the longer dimension, per direction,
  // and their bandwidth in bytes/s (one direction).
  int BisectionLinks() const;
  double BisectionBandwidth() const { return BisectionLinks() * ici_.bandwidth_bytes_per_s; }

 private:
  // Steps along one dimension from a to b: signed, shortest with wrap.
  static int Steps(int a, int b, int n, bool wrap);

  int chips_x_, chips_y_;
  bool wrap_x_, wrap_y_;
  int cores_per_chip_;
  LinkSpec ici_, core_link_;
};

}  // namespace podbench::topology
