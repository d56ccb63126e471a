// Anchor matching, as the MLPerf v0.6 SSD reference does it
// (MATCH_THRESHOLD 0.5, with every ground-truth box forced onto its best
// anchor, so no object goes unmatched):
//   1. each anchor takes the ground truth it overlaps most (the first one on
//      equal IoU) when that IoU >= threshold;
//   2. then each ground-truth box, in order, claims the anchor it overlaps
//      most (the first such anchor), whatever that IoU, if it is > 0; a
//      later box wins an anchor two boxes claim.
#pragma once

#include <cstddef>
#include <vector>

#include "workloads/detection/box.h"

namespace podbench::detection {

// For each anchor, the index into `truth` it is matched to, or -1
// (background).
std::vector<int> MatchAnchors(const std::vector<Box>& anchors, const std::vector<Box>& truth,
                              double threshold = 0.5);

}  // namespace podbench::detection
