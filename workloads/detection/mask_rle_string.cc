#include "workloads/detection/mask_rle_string.h"

#include <cstdint>
#include <limits>

namespace podbench::detection {

namespace {
constexpr int kGroupBits = 5;
constexpr int kMore = 0x20, kSign = 0x10, kGroup = 0x1f;
constexpr char kFirst = '0';                     // 48, group 0
constexpr int kMaxGroups = 64 / kGroupBits;      // what an int64 holds
}  // namespace

std::string EncodeRleString(const Rle& rle) {
  std::string s;
  const auto& c = rle.counts;
  for (size_t i = 0; i < c.size(); ++i) {
    int64_t x = static_cast<int64_t>(c[i]) - (i > 2 ? static_cast<int64_t>(c[i - 2]) : 0);
    bool more = true;
    while (more) {
      int group = static_cast<int>(x & kGroup);
      x >>= kGroupBits;  // arithmetic: a negative value ends at -1
      more = (group & kSign) ? x != -1 : x != 0;
      if (more) group |= kMore;
      s.push_back(static_cast<char>(kFirst + group));
    }
  }
  return s;
}

Result<Rle> DecodeRleString(int height, int width, std::string_view s, const std::string& what) {
  std::vector<uint32_t> counts;
  size_t p = 0;
  while (p < s.size()) {
    const size_t start = p;
    int64_t x = 0;
    int k = 0;
    bool more = true;
    while (more) {
      if (p >= s.size()) {
        return Status::InvalidArgument(what + ": compressed RLE string ends inside the count that starts at offset " +
                                       std::to_string(start));
      }
      const int ch = static_cast<unsigned char>(s[p]);
      const int group = ch - kFirst;
      if (group < 0 || group > (kMore | kGroup)) {
        return Status::InvalidArgument(what + ": compressed RLE string has character '" + std::string(1, s[p]) +
                                       "' at offset " + std::to_string(p) + ", outside '0'..'o'");
      }
      if (k >= kMaxGroups) {
        return Status::InvalidArgument(what + ": compressed RLE count at offset " + std::to_string(start) +
                                       " is too long");
      }
      x |= static_cast<int64_t>(group & kGroup) << (kGroupBits * k);
      more = (group & kMore) != 0;
      ++p;
      ++k;
      if (!more && (group & kSign)) x |= static_cast<int64_t>(~uint64_t{0} << (kGroupBits * k));
    }
    if (counts.size() > 2) x += counts[counts.size() - 2];
    if (x < 0 || x > std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument(what + ": compressed RLE count #" + std::to_string(counts.size()) +
                                     " (offset " + std::to_string(start) + ") is " + std::to_string(x) +
                                     ", outside 0..2^32-1");
    }
    counts.push_back(static_cast<uint32_t>(x));
  }
  return MakeRle(height, width, std::move(counts), what);
}

}  // namespace podbench::detection
