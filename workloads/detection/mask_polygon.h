// COCO polygons to masks with pycocotools' rasteriser (maskApi's frPoly),
// reproduced rule for rule so that every pixel agrees:
//   1. the vertices are scaled by 5 and rounded as C's (int)(5 * v + 0.5)
//      does (truncating toward zero), and the polygon closed;
//   2. each edge is walked one step at a time along its longer axis, from
//      its lower end on that axis, the other coordinate rounded the same way
//      ((int)(start + slope * t + 0.5)), and its points listed in the edge's
//      own direction;
//   3. wherever consecutive points change upsampled column, from u0 to u1,
//      the crossing lies at column u1 when moving left and u1 - 1 when
//      moving right (the lower of the two for a step of one); it counts only
//      when that maps back to a whole pixel column c = (u + 0.5) / 5 - 0.5
//      inside the image. Its row is the smaller of the two points' rows,
//      mapped back the same way, clamped to [0, h] and rounded up; the
//      crossing toggles the mask at column-major position c * h + row;
//   4. the toggles (and h * w) are sorted and turned into run lengths, where
//      toggles at the same position cancel in pairs.
// So a pixel is set when its centre lies inside the polygon by an even-odd
// rule applied per column on the 5x grid; self-intersecting polygons fill
// even-odd, and parts outside the image are clipped.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "workloads/detection/mask_rle.h"

namespace podbench::detection {

// One polygon [x0, y0, x1, y1, ...] as a height x width mask. InvalidArgument
// naming `what` for an odd number of coordinates, fewer than 3 points (COCO
// reads a list of 4 numbers as a box), a coordinate that is not finite or
// beyond +-1e6 pixels.
Result<Rle> RasterisePolygon(const std::vector<double>& xy, int height, int width, const std::string& what);

// Several polygons of one object: the union of their masks (pycocotools'
// frPyObjects then merge). InvalidArgument as above (naming the polygon), or
// when there is none.
Result<Rle> RasterisePolygons(const std::vector<std::vector<double>>& polygons, int height, int width,
                              const std::string& what);

}  // namespace podbench::detection
