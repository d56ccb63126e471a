#include "topology/torus.h"

#include <cassert>
#include <cstdlib>

namespace podbench::topology {

Torus::Torus(int chips_x, int chips_y, bool wrap_x, bool wrap_y, int cores_per_chip, LinkSpec ici,
             LinkSpec core_link)
    : chips_x_(chips_x),
      chips_y_(chips_y),
      wrap_x_(wrap_x && chips_x > 1),
      wrap_y_(wrap_y && chips_y > 1),
      cores_per_chip_(cores_per_chip),
      ici_(ici),
      core_link_(core_link) {
  assert(chips_x >= 1 && chips_y >= 1 && cores_per_chip >= 1);
}

int Torus::IciLink(int chip, Dir dir) const {
  const int x = ChipX(chip), y = ChipY(chip);
  switch (dir) {
    case Dir::kPlusX:
      if (chips_x_ == 1 || (x == chips_x_ - 1 && !wrap_x_)) return -1;
      break;
    case Dir::kMinusX:
      if (chips_x_ == 1 || (x == 0 && !wrap_x_)) return -1;
      break;
    case Dir::kPlusY:
      if (chips_y_ == 1 || (y == chips_y_ - 1 && !wrap_y_)) return -1;
      break;
    case Dir::kMinusY:
      if (chips_y_ == 1 || (y == 0 && !wrap_y_)) return -1;
      break;
  }
  return 4 * chip + static_cast<int>(dir);
}

int Torus::NumIciLinks() const {
  int n = 0;
  for (int c = 0; c < num_chips(); ++c) {
    for (int d = 0; d < 4; ++d) n += IciLink(c, static_cast<Dir>(d)) >= 0 ? 1 : 0;
  }
  return n;
}

int Torus::Steps(int a, int b, int n, bool wrap) {
  int d = b - a;
  if (!wrap || d == 0) return d;
  int fwd = ((d % n) + n) % n;  // steps going +
  int bwd = n - fwd;            // steps going -
  return fwd <= bwd ? fwd : -bwd;
}

int Torus::Hops(int chip_a, int chip_b) const {
  return std::abs(Steps(ChipX(chip_a), ChipX(chip_b), chips_x_, wrap_x_)) +
         std::abs(Steps(ChipY(chip_a), ChipY(chip_b), chips_y_, wrap_y_));
}

void Torus::Route(int from, int to, std::vector<int32_t>* links) const {
  links->clear();
  if (from == to) return;
  int a = ChipOfCore(from);
  const int b = ChipOfCore(to);
  if (a == b) {
    links->push_back(CoreLink(a, LocalCore(from), LocalCore(to)));
    return;
  }
  int x = ChipX(a), y = ChipY(a);
  int sx = Steps(x, ChipX(b), chips_x_, wrap_x_);
  int sy = Steps(y, ChipY(b), chips_y_, wrap_y_);
  for (; sx != 0; sx += sx > 0 ? -1 : 1) {
    const Dir d = sx > 0 ? Dir::kPlusX : Dir::kMinusX;
    int l = IciLink(ChipAt(x, y), d);
    assert(l >= 0);
    links->push_back(l);
    x = (x + (sx > 0 ? 1 : chips_x_ - 1)) % chips_x_;
  }
  for (; sy != 0; sy += sy > 0 ? -1 : 1) {
    const Dir d = sy > 0 ? Dir::kPlusY : Dir::kMinusY;
    int l = IciLink(ChipAt(x, y), d);
    assert(l >= 0);
    links->push_back(l);
    y = (y + (sy > 0 ? 1 : chips_y_ - 1)) % chips_y_;
  }
}

int Torus::BisectionLinks() const {
  // Halving X cuts chips_y rows, each crossed once (mesh) or twice (torus).
  const int cut_x = chips_x_ > 1 ? chips_y_ * (wrap_x_ ? 2 : 1) : 0;
  const int cut_y = chips_y_ > 1 ? chips_x_ * (wrap_y_ ? 2 : 1) : 0;
  if (chips_x_ == 1) return cut_y;
  if (chips_y_ == 1) return cut_x;
  return chips_x_ >= chips_y_ ? cut_x : cut_y;
}

}  // namespace podbench::topology
