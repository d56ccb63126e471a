// COCO's compressed RLE string (the "counts" string of {"size", "counts"},
// pycocotools' rleToString / rleFrString): each count, from the third on as
// its difference to the count two before it (counts[i] - counts[i-2] for
// i > 2; the first three as they are), is written as a signed little-endian
// sequence of 5-bit groups, one character per group: character = 48 + group,
// with 0x20 set on every group but the last; the last group's bit 0x10 is
// the sign (the value is sign-extended from it).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "workloads/detection/mask_rle.h"

namespace podbench::detection {

// The compressed string of rle's counts.
std::string EncodeRleString(const Rle& rle);

// Decodes `s` as the counts of a height x width mask. InvalidArgument naming
// `what` and the character offset for a character outside '0'..'o', a string
// that ends inside a count, a count too large for 32 bits or negative, or
// counts that do not sum to height * width.
Result<Rle> DecodeRleString(int height, int width, std::string_view s, const std::string& what);

}  // namespace podbench::detection
