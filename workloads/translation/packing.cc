#include "workloads/translation/packing.h"

#include <algorithm>
#include <deque>
#include <numeric>

namespace podbench::translation {
namespace {

// One row being filled.
struct OpenRow {
  std::vector<int32_t> in, in_seg, in_pos, tgt, tgt_seg, tgt_pos;
  int32_t segments = 0;

  static bool Fits(const std::vector<int32_t>& row, size_t add, int64_t length, int spacing) {
    const size_t gap = row.empty() ? 0 : static_cast<size_t>(spacing);
    return row.size() + gap + add <= static_cast<size_t>(length);
  }
  bool Fits(const TokenPair& e, int64_t length, int spacing) const {
    return Fits(in, e.source.size(), length, spacing) && Fits(tgt, e.target.size(), length, spacing);
  }
  static void Append(const std::vector<int32_t>& seq, int32_t segment, int spacing, std::vector<int32_t>& tok,
                     std::vector<int32_t>& seg, std::vector<int32_t>& pos) {
    if (!tok.empty()) {
      tok.insert(tok.end(), static_cast<size_t>(spacing), 0);
      seg.insert(seg.end(), static_cast<size_t>(spacing), 0);
      pos.insert(pos.end(), static_cast<size_t>(spacing), 0);
    }
    for (size_t i = 0; i < seq.size(); ++i) {
      tok.push_back(seq[i]);
      seg.push_back(segment);
      pos.push_back(static_cast<int32_t>(i));
    }
  }
  void Add(const TokenPair& e, int spacing) {
    ++segments;
    Append(e.source, segments, spacing, in, in_seg, in_pos);
    Append(e.target, segments, spacing, tgt, tgt_seg, tgt_pos);
  }
};

void Emit(const OpenRow& r, int64_t length, PackedRows* out) {
  auto put = [&](const std::vector<int32_t>& v, std::vector<int32_t>& dst) {
    dst.insert(dst.end(), v.begin(), v.end());
    dst.insert(dst.end(), static_cast<size_t>(length) - v.size(), 0);
  };
  put(r.in, out->inputs);
  put(r.in_seg, out->inputs_segmentation);
  put(r.in_pos, out->inputs_position);
  put(r.tgt, out->targets);
  put(r.tgt_seg, out->targets_segmentation);
  put(r.tgt_pos, out->targets_position);
  ++out->rows;
}

}  // namespace

Result<PackedRows> PackExamples(const std::vector<TokenPair>& examples, int64_t length, int spacing,
                                int queue_size) {
  if (length < 1 || spacing < 0 || queue_size < 1) {
    return Status::InvalidArgument("packing: length must be >= 1, spacing >= 0, queue_size >= 1");
  }
  PackedRows out;
  out.length = length;
  std::deque<OpenRow> open;
  for (size_t k = 0; k < examples.size(); ++k) {
    const TokenPair& e = examples[k];
    if (e.source.empty() || e.target.empty() || static_cast<int64_t>(e.source.size()) > length ||
        static_cast<int64_t>(e.target.size()) > length) {
      return Status::InvalidArgument("packing: example " + std::to_string(k) + " has " +
                                     std::to_string(e.source.size()) + " source and " +
                                     std::to_string(e.target.size()) + " target tokens; each must be 1.." +
                                     std::to_string(length));
    }
    auto fit = std::find_if(open.begin(), open.end(), [&](const OpenRow& r) { return r.Fits(e, length, spacing); });
    if (fit == open.end()) {
      if (static_cast<int>(open.size()) == queue_size) {
        Emit(open.front(), length, &out);
        open.pop_front();
      }
      open.emplace_back();
      fit = open.end() - 1;
    }
    fit->Add(e, spacing);
    ++out.examples;
  }
  for (const OpenRow& r : open) Emit(r, length, &out);
  return out;
}

void PackedRows::Gather(const std::vector<int64_t>& order, int64_t first, int64_t count, PackedRows* out) const {
  out->rows = count;
  out->length = length;
  out->examples = 0;
  const size_t n = static_cast<size_t>(count * length);
  auto gather = [&](const std::vector<int32_t>& src, std::vector<int32_t>& dst) {
    dst.resize(n);
    for (int64_t r = 0; r < count; ++r) {
      const int64_t from = order[static_cast<size_t>(first + r)];
      std::copy_n(src.begin() + from * length, length, dst.begin() + r * length);
    }
  };
  gather(inputs, out->inputs);
  gather(inputs_segmentation, out->inputs_segmentation);
  gather(inputs_position, out->inputs_position);
  gather(targets, out->targets);
  gather(targets_segmentation, out->targets_segmentation);
  gather(targets_position, out->targets_position);
  for (int64_t r = 0; r < count; ++r) {
    const auto row = out->targets_segmentation.begin() + r * length;
    out->examples += *std::max_element(row, row + length);
  }
}

void PackedRows::SharesOfCores(int begin, int end, int64_t per_core, std::vector<PackedRows>* out) const {
  std::vector<int64_t> order(static_cast<size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  out->resize(static_cast<size_t>(end - begin));
  for (int c = begin; c < end; ++c) Gather(order, c * per_core, per_core, &(*out)[static_cast<size_t>(c - begin)]);
}

}  // namespace podbench::translation
