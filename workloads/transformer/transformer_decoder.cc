// TransformerCore's incremental decoder: the encoder runs once over the
// sentences, then each beam-search step runs the decoder stack on one new
// token per row, attending over the cached keys/values of the row's earlier
// positions (gathered through parent_rows when beams are reordered) and over
// its sentence's encoder output. Same arithmetic as the training forward
// without dropout: matmuls under the MXU contract, fp32 softmax and norms.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/bf16.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/matmul.h"
#include "kernels/ops/softmax_xent.h"
#include "workloads/transformer/transformer_core_impl.h"

namespace podbench::transformer {

Status TransformerCore::StartDecoding(const float* w, const std::vector<std::span<const int32_t>>& sources) {
  Impl& m = *impl_;
  if (sources.empty()) return Status::InvalidArgument("transformer: nothing to decode");
  int64_t longest = 0;
  for (const auto& s : sources) {
    if (s.empty()) return Status::InvalidArgument("transformer: an empty source sentence");
    for (int32_t id : s) {
      if (id < 0 || id >= m.vocab) return Status::InvalidArgument("transformer: source id " + std::to_string(id) + " outside the vocabulary");
    }
    longest = std::max<int64_t>(longest, static_cast<int64_t>(s.size()));
  }
  const int64_t b = static_cast<int64_t>(sources.size()), n = b * longest;
  m.dec_batch = b;
  m.src_len = longest;
  m.src_lengths.assign(static_cast<size_t>(b), 0);
  // Every sentence is one row of `longest` positions, padding after it.
  std::vector<int32_t> ids(static_cast<size_t>(n), 0), seg(ids.size(), 0), pos(ids.size(), 0);
  m.src_mask.assign(ids.size(), 0);
  for (int64_t r = 0; r < b; ++r) {
    const auto& s = sources[static_cast<size_t>(r)];
    m.src_lengths[static_cast<size_t>(r)] = static_cast<int64_t>(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t at = static_cast<size_t>(r * longest) + i;
      ids[at] = s[i];
      seg[at] = 1;
      pos[at] = static_cast<int32_t>(i);
      m.src_mask[at] = 1;
    }
  }
  std::vector<uint8_t> mask(static_cast<size_t>(b * longest * longest));
  for (int64_t r = 0; r < b; ++r) {
    for (int64_t i = 0; i < longest; ++i) {
      for (int64_t j = 0; j < longest; ++j) {
        const size_t at = static_cast<size_t>(r * longest);
        mask[static_cast<size_t>((r * longest + i) * longest + j)] = m.src_mask[at + static_cast<size_t>(i)] &&
                                                                    m.src_mask[at + static_cast<size_t>(j)];
      }
    }
  }
  m.Resize(b, longest);
  m.Embed(w, ids.data(), seg.data(), pos.data(), n, false, m.enc.x[0].data());
  StepContext eval;
  eval.training = false;
  m.EncoderForward(w, b, longest, mask.data(), eval);
  m.dec_cross_kv.resize(static_cast<size_t>(m.cfg.decoder_layers));
  for (int l = 0; l < m.cfg.decoder_layers; ++l) {
    auto& kv = m.dec_cross_kv[static_cast<size_t>(l)];
    kv.resize(static_cast<size_t>(n * 2 * m.d));
    m.Dense(m.enc.final_norm.y.data(), n, m.d, 2 * m.d, w + m.layout.decoder[static_cast<size_t>(l)].cross.kv,
            nullptr, kv.data());
  }
  m.cache_k.assign(static_cast<size_t>(m.cfg.decoder_layers), {});
  m.cache_v.assign(static_cast<size_t>(m.cfg.decoder_layers), {});
  m.dec_weights = w;
  return Status::Ok();
}

namespace {

// Single-query attention for one row and head: out[dh] = softmax(scale q.K) V
// over `keys` positions (K and V rows `ld` floats apart). With the MXU
// contract the operands are rounded to bf16 as the matmul would.
void AttendOne(const float* q, const float* k, const float* v, int64_t ld, int64_t keys, const uint8_t* valid,
               int dh, float scale, bool bf16, std::vector<float>& p, float* out) {
  auto r = [bf16](float x) { return bf16 ? kernels::RoundToBf16(x) : x; };
  p.resize(static_cast<size_t>(keys));
  for (int64_t j = 0; j < keys; ++j) {
    float s = 0;
    for (int i = 0; i < dh; ++i) s += r(q[i]) * r(k[j * ld + i]);
    p[static_cast<size_t>(j)] = s * scale;
  }
  kernels::MaskedSoftmax(p.data(), valid, 1, keys);
  std::fill_n(out, dh, 0.f);
  for (int64_t j = 0; j < keys; ++j) {
    const float pj = r(p[static_cast<size_t>(j)]);
    for (int i = 0; i < dh; ++i) out[i] += pj * r(v[j * ld + i]);
  }
}

}  // namespace

Status TransformerCore::DecodeStep(int step, std::span<const int32_t> parent_rows, std::span<const int32_t> sentences,
                                   std::span<const int32_t> tokens, std::span<float> log_probs) {
  Impl& m = *impl_;
  const float* w = m.dec_weights;
  if (w == nullptr) return Status::FailedPrecondition("transformer: DecodeStep before StartDecoding");
  const int64_t rows = static_cast<int64_t>(tokens.size()), d = m.d;
  if (parent_rows.size() != tokens.size() || sentences.size() != tokens.size() ||
      log_probs.size() != static_cast<size_t>(rows * m.vocab)) {
    return Status::InvalidArgument("transformer: decode step spans disagree on the number of rows");
  }
  for (int64_t r = 0; r < rows; ++r) {
    const int32_t s = sentences[static_cast<size_t>(r)];
    const int32_t parent = parent_rows[static_cast<size_t>(r)];
    if (s < 0 || s >= m.dec_batch || (step > 0 && parent < 0) ||
        tokens[static_cast<size_t>(r)] < 0 || tokens[static_cast<size_t>(r)] >= m.vocab) {
      return Status::InvalidArgument("transformer: decode step row " + std::to_string(r) + " is out of range");
    }
  }
  // Reorder the caches: row r continues parent_rows[r]'s first `step` positions.
  const size_t per_row = static_cast<size_t>(step) * static_cast<size_t>(d);
  for (int l = 0; l < m.cfg.decoder_layers; ++l) {
    for (auto* cache : {&m.cache_k[static_cast<size_t>(l)], &m.cache_v[static_cast<size_t>(l)]}) {
      std::vector<float> next(static_cast<size_t>(rows) * (per_row + static_cast<size_t>(d)));
      const size_t old_stride = per_row;
      for (int64_t r = 0; r < rows && step > 0; ++r) {
        const auto parent = static_cast<size_t>(parent_rows[static_cast<size_t>(r)]);
        if ((parent + 1) * old_stride > cache->size()) {
          return Status::InvalidArgument("transformer: decode step parent row " + std::to_string(parent) +
                                         " did not exist at the previous step");
        }
        std::memcpy(next.data() + static_cast<size_t>(r) * (per_row + static_cast<size_t>(d)),
                    cache->data() + parent * old_stride, per_row * sizeof(float));
      }
      *cache = std::move(next);
    }
  }
  const size_t stride = per_row + static_cast<size_t>(d);  // positions 0..step per row
  // Input: the last token's embedding scaled by sqrt(d) (zero at step 0,
  // the shifted-right start), plus the timing signal of position `step`.
  std::vector<float> x(static_cast<size_t>(rows * d), 0.f), ctx(x.size()), tmp(x.size());
  const float* timing = m.Timing(step);
  const float emb_scale = std::sqrt(static_cast<float>(d));
  for (int64_t r = 0; r < rows; ++r) {
    float* xr = x.data() + r * d;
    if (step > 0) {
      const float* e = w + m.layout.embedding + static_cast<int64_t>(tokens[static_cast<size_t>(r)]) * d;
      for (int64_t k = 0; k < d; ++k) xr[k] = e[k] * emb_scale;
    }
    for (int64_t k = 0; k < d; ++k) xr[k] += timing[k];
  }
  const bool bf16 = m.cfg.precision == kernels::Precision::kBf16;
  std::vector<float> qkv(static_cast<size_t>(rows * 3 * d)), hidden(static_cast<size_t>(rows * m.filter)), p;
  std::vector<uint8_t> all(static_cast<size_t>(step + 1), 1);
  NormCache nc;
  for (int l = 0; l < m.cfg.decoder_layers; ++l) {
    const auto& P = m.layout.decoder[static_cast<size_t>(l)];
    auto& ck = m.cache_k[static_cast<size_t>(l)];
    auto& cv = m.cache_v[static_cast<size_t>(l)];
    // Self-attention over positions 0..step.
    m.Norm(w, P.norm1, x.data(), rows, nc);
    m.Dense(nc.y.data(), rows, d, 3 * d, w + P.self.q, nullptr, qkv.data());
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(ck.data() + static_cast<size_t>(r) * stride + per_row, qkv.data() + r * 3 * d + d,
                  static_cast<size_t>(d) * sizeof(float));
      std::memcpy(cv.data() + static_cast<size_t>(r) * stride + per_row, qkv.data() + r * 3 * d + 2 * d,
                  static_cast<size_t>(d) * sizeof(float));
      for (int h = 0; h < m.heads; ++h) {
        AttendOne(qkv.data() + r * 3 * d + h * m.dh, ck.data() + static_cast<size_t>(r) * stride + static_cast<size_t>(h * m.dh),
                  cv.data() + static_cast<size_t>(r) * stride + static_cast<size_t>(h * m.dh), d, step + 1, all.data(),
                  m.dh, m.scale, bf16, p, ctx.data() + r * d + h * m.dh);
      }
    }
    m.Dense(ctx.data(), rows, d, d, w + P.self.out, nullptr, x.data(), true);
    // Encoder-decoder attention over the row's sentence.
    m.Norm(w, P.norm2, x.data(), rows, nc);
    m.Dense(nc.y.data(), rows, d, d, w + P.cross.q, nullptr, tmp.data());
    const auto& kv = m.dec_cross_kv[static_cast<size_t>(l)];
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t s = sentences[static_cast<size_t>(r)];
      for (int h = 0; h < m.heads; ++h) {
        const float* base = kv.data() + s * m.src_len * 2 * d + h * m.dh;
        AttendOne(tmp.data() + r * d + h * m.dh, base, base + d, 2 * d, m.src_len,
                  m.src_mask.data() + s * m.src_len, m.dh, m.scale, bf16, p, ctx.data() + r * d + h * m.dh);
      }
    }
    m.Dense(ctx.data(), rows, d, d, w + P.cross.out, nullptr, x.data(), true);
    // Feed-forward.
    m.Norm(w, P.norm3, x.data(), rows, nc);
    m.Dense(nc.y.data(), rows, d, m.filter, w + P.ffn.w1, w + P.ffn.b1, hidden.data());
    kernels::Relu(hidden.data(), hidden.data(), rows * m.filter);
    m.Dense(hidden.data(), rows, m.filter, d, w + P.ffn.w2, nullptr, x.data(), true);
    kernels::AddBias(w + P.ffn.b2, x.data(), rows, d);
  }
  m.Norm(w, m.layout.decoder_norm, x.data(), rows, nc);
  kernels::MatMul(rows, m.vocab, d, nc.y.data(), d, false, w + m.layout.embedding, d, true, log_probs.data(), m.vocab,
                  false, m.cfg.precision);
  for (int64_t r = 0; r < rows; ++r) {
    float* z = log_probs.data() + r * m.vocab;
    const float mx = *std::max_element(z, z + m.vocab);
    double sum = 0;
    for (int64_t j = 0; j < m.vocab; ++j) sum += std::exp(static_cast<double>(z[j] - mx));
    const float log_sum = static_cast<float>(std::log(sum)) + mx;
    for (int64_t j = 0; j < m.vocab; ++j) z[j] -= log_sum;
  }
  return Status::Ok();
}

}  // namespace podbench::transformer
