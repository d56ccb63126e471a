#include "workloads/gnmt/gnmt_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "kernels/ops/bahdanau_attention.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/embedding.h"
#include "kernels/ops/lstm_cell.h"
#include "kernels/ops/matmul.h"
#include "kernels/ops/softmax_xent.h"

namespace podbench::gnmt {

using kernels::MatMul;
using kernels::Precision;

namespace {

constexpr int32_t kStartId = 0;  // the decoder's first input (translation::BeamSearchOptions::start_id)
constexpr int32_t kEosId = 1;    // translation::kEosId

uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

using Vec = std::vector<float>;

float* At(Vec& v, int64_t i) { return v.data() + i; }

void Zero(Vec& v, size_t n) { v.assign(n, 0.0f); }

}  // namespace

Status GnmtConfig::Validate() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("gnmt config: " + m); };
  if (vocab < 4) return bad("vocab must be >= 4, got " + std::to_string(vocab));
  if (hidden < 1) return bad("hidden must be >= 1, got " + std::to_string(hidden));
  if (encoder_layers < 2) return bad("encoder_layers must be >= 2 (a bidirectional layer, then unidirectional ones)");
  if (decoder_layers < 1) return bad("decoder_layers must be >= 1");
  if (!(dropout >= 0.f && dropout < 1.f)) return bad("dropout must be in [0, 1)");
  if (!(label_smoothing >= 0.f && label_smoothing <= 1.f)) return bad("label_smoothing must be in [0, 1]");
  if (!(init_scale > 0.f)) return bad("init_scale must be > 0");
  return Status::Ok();
}

GnmtLayout::GnmtLayout(const GnmtConfig& c) {
  const int64_t H = c.hidden;
  int64_t at = 0;
  auto take = [&](int64_t n) {
    const int64_t o = at;
    at += n;
    return o;
  };
  auto lstm = [&](int64_t input) {
    Lstm l;
    l.input = input;
    l.w = take((input + H) * 4 * H);
    l.b = take(4 * H);
    return l;
  };
  embedding = take(int64_t{c.vocab} * H);
  encoder_fw = lstm(H);
  encoder_bw = lstm(H);
  for (int i = 1; i < c.encoder_layers; ++i) encoder.push_back(lstm(i == 1 ? 2 * H : H));
  memory = take(H * H);
  query = take(H * H);
  attention_v = take(H);
  attention_g = take(1);
  attention_b = take(H);
  for (int i = 0; i < c.decoder_layers; ++i) decoder.push_back(lstm(2 * H));
  projection = take(H * c.vocab);
  total = at;
}

std::vector<float> InitialParameters(const GnmtConfig& c, uint64_t seed) {
  const GnmtLayout l(c);
  std::vector<float> w(static_cast<size_t>(l.total));
  uint64_t state = Mix(seed ^ 0x676e6d74ull);
  for (float& e : w) {
    const double u = static_cast<double>(Mix(state += 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53;
    e = static_cast<float>((2 * u - 1) * c.init_scale);
  }
  w[static_cast<size_t>(l.attention_g)] = static_cast<float>(std::sqrt(1.0 / c.hidden));
  std::fill_n(w.begin() + l.attention_b, c.hidden, 0.0f);
  return w;
}

// ---------------------------------------------------------------- the core

struct GnmtCore::Impl {
  GnmtConfig cfg;
  GnmtLayout layout;
  int64_t H;
  Precision prec;

  // Batch shape of the last forward.
  int64_t B = 0, Ts = 0, Tt = 0;
  std::vector<int32_t> src_len;   // [B]
  std::vector<int32_t> src_ids;   // [Ts][B] (EOS past a row's length)
  std::vector<int32_t> tgt_in;    // [Tt][B]
  std::vector<int32_t> tgt_out;   // [Tt][B]

  // One LSTM layer's activations over a sequence: state index t is the
  // state before position t in the layer's direction of travel (see below).
  struct LstmRun {
    Vec x;      // [T][B][input] (after dropout)
    Vec gates;  // [T][B][4H]
    Vec h, c;   // [T + 1][B][H]
    std::vector<uint8_t> drop;  // dropout mask of x
  };
  LstmRun emb_src;             // only x / drop used: the dropped source embedding [Ts][B][H]
  LstmRun fw, bw;              // bidirectional layer (bw's state t + 1 comes before position t)
  std::vector<LstmRun> enc;    // unidirectional layers
  std::vector<Vec> enc_out;    // [layer][Ts][B][width]: [0] the bidirectional output (2H), then each layer's (H)
  Vec memory, keys;            // [B][Ts][H]
  // Decoder.
  LstmRun emb_tgt;             // x / drop: the dropped target embedding [Tt][B][H]
  std::vector<LstmRun> dec;    // [0] the attention cell
  Vec query;                   // [Tt][B][H]
  Vec att_tanh;                // [Tt][B][Ts][H]
  Vec att_probs;               // [Tt][B][Ts]
  Vec att;                     // [Tt + 1][B][H]: att[t + 1] the attention of position t; att[0] = 0
  std::vector<Vec> dec_out;    // [layer][Tt][B][H]
  // Loss.
  std::vector<int64_t> kept;   // loss rows (t * B + b)
  Vec top, logits;             // [kept][H], [kept][vocab]

  // Decoding state.
  int64_t n_sent = 0;
  std::vector<int32_t> dec_len;          // [sentence]
  Vec dec_memory, dec_keys;              // [sentence][Ts][H]
  std::vector<Vec> st_h, st_c;           // per layer [rows][H]
  Vec st_att;                            // [rows][H]
  int64_t decode_rows = 0;  // rows of the last DecodeStep
  const float* decode_w = nullptr;
  std::vector<std::vector<uint8_t>> live_src;  // [Ts][B]: position t is inside row b's source

  Impl(const GnmtConfig& c, const GnmtLayout& l) : cfg(c), layout(l), H(c.hidden), prec(c.precision) {}

  // Draws a dropout mask over n values and applies it to x (scaled by 1 / keep).
  void Dropout(const StepContext& ctx, uint64_t site, float* x, int64_t n, std::vector<uint8_t>& mask) const {
    const float p = ctx.training ? cfg.dropout : 0.f;
    if (p <= 0.f) {
      mask.clear();
      return;
    }
    mask.resize(static_cast<size_t>(n));
    const uint64_t key = Mix(Mix(Mix(ctx.seed ^ 0x67647270ull) + static_cast<uint64_t>(ctx.step)) +
                             (static_cast<uint64_t>(ctx.core) << 32) + site);
    const auto threshold = static_cast<uint64_t>(static_cast<double>(p) * 16777216.0);
    const float scale = 1.f / (1.f - p);
    for (int64_t i = 0; i < n; ++i) {
      mask[static_cast<size_t>(i)] = (Mix(key + static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ull) >> 40) >= threshold;
      x[i] = mask[static_cast<size_t>(i)] ? x[i] * scale : 0.f;
    }
  }
  // The gradient of a dropped-out value from the gradient after dropout (in place).
  void DropoutBackward(const std::vector<uint8_t>& mask, float* dx, int64_t n) const {
    if (mask.empty()) return;
    const float scale = 1.f / (1.f - cfg.dropout);
    for (int64_t i = 0; i < n; ++i) dx[i] = mask[static_cast<size_t>(i)] ? dx[i] * scale : 0.f;
  }

  void SizeRun(LstmRun& r, int64_t T, int64_t input) const {
    Zero(r.x, static_cast<size_t>(T * B * input));
    Zero(r.gates, static_cast<size_t>(T * B * 4 * H));
    Zero(r.h, static_cast<size_t>((T + 1) * B * H));
    Zero(r.c, static_cast<size_t>((T + 1) * B * H));
  }

  // One cell step of layer `l` on x: state `from` -> state `to`. Rows b with
  // live[b] == 0 keep their state (padding past a row's source).
  void CellForward(const float* w, const GnmtLayout::Lstm& l, LstmRun& r, const float* x, int64_t gates_at,
                   int64_t from, int64_t to, const std::vector<uint8_t>* live) const {
    kernels::LstmShape s{B, l.input, H};
    float* h_to = At(r.h, to * B * H);
    float* c_to = At(r.c, to * B * H);
    const float* h_from = At(r.h, from * B * H);
    const float* c_from = At(r.c, from * B * H);
    kernels::LstmCellForward(s, x, h_from, c_from, w + l.w, w + l.b, At(r.gates, gates_at * B * 4 * H), c_to,
                             h_to, 1, prec);
    if (live == nullptr) return;
    for (int64_t b = 0; b < B; ++b) {
      if ((*live)[static_cast<size_t>(b)]) continue;
      std::copy_n(h_from + b * H, H, h_to + b * H);
      std::copy_n(c_from + b * H, H, c_to + b * H);
    }
  }

  // Backward of CellForward. dh, dc: the gradients at state `to`, replaced
  // by those at state `from` (a kept state passes them through). Writes dx
  // (may be null; zero for kept rows). Adds into the layer's gradient.
  void CellBackward(const float* w, const GnmtLayout::Lstm& l, LstmRun& r, const float* x, int64_t gates_at,
                    int64_t from, int64_t to, const std::vector<uint8_t>* live, Vec& dh, Vec& dc, float* dx,
                    float* grad) {
    kernels::LstmShape s{B, l.input, H};
    sdh = dh;
    sdc = dc;
    if (live != nullptr) {
      for (int64_t b = 0; b < B; ++b) {
        if ((*live)[static_cast<size_t>(b)]) continue;
        std::fill_n(At(sdh, b * H), H, 0.f);
        std::fill_n(At(sdc, b * H), H, 0.f);
      }
    }
    odh.resize(dh.size());
    odc.resize(dc.size());
    kernels::LstmCellBackward(s, x, At(r.h, from * B * H), At(r.c, from * B * H), w + l.w,
                              At(r.gates, gates_at * B * 4 * H), At(r.c, to * B * H), sdh.data(), sdc.data(), dx,
                              odh.data(), odc.data(), grad + l.w, grad + l.b, 1, prec);
    for (int64_t b = 0; b < B; ++b) {
      if (live != nullptr && !(*live)[static_cast<size_t>(b)]) continue;
      std::copy_n(At(odh, b * H), H, At(dh, b * H));
      std::copy_n(At(odc, b * H), H, At(dc, b * H));
    }
  }
  Vec sdh, sdc, odh, odc;

  Status Encode(const float* w, const StepContext& ctx);
  Result<std::pair<double, int64_t>> Train(const float* w, const translation::PackedRows& rows,
                                           const StepContext& ctx, float* grad);
};

namespace {

// Dropout sites (one mask per site and step).
constexpr uint64_t kSiteSourceEmbedding = 1, kSiteTargetEmbedding = 2, kSiteEncoderLayer = 10,
                   kSiteDecoderLayer = 20;

// Adds x[i] into y[i] for n values.
void AddInto(const float* x, float* y, int64_t n) { kernels::Add(y, x, y, n); }

}  // namespace

Status GnmtCore::Impl::Encode(const float* w, const StepContext& ctx) {
  const GnmtLayout& L = layout;
  const int64_t n = Ts * B;
  std::vector<std::vector<uint8_t>> live(static_cast<size_t>(Ts), std::vector<uint8_t>(static_cast<size_t>(B)));
  for (int64_t t = 0; t < Ts; ++t) {
    for (int64_t b = 0; b < B; ++b) live[static_cast<size_t>(t)][static_cast<size_t>(b)] = t < src_len[static_cast<size_t>(b)];
  }
  live_src = std::move(live);
  // Embedding, then dropout.
  Zero(emb_src.x, static_cast<size_t>(n * H));
  kernels::EmbeddingLookup(w + L.embedding, cfg.vocab, H, src_ids.data(), n, emb_src.x.data());
  Dropout(ctx, kSiteSourceEmbedding, emb_src.x.data(), n * H, emb_src.drop);
  // The bidirectional layer: fw's state t + 1 follows position t; bw's state t follows position t (from t + 1).
  SizeRun(fw, Ts, H);
  SizeRun(bw, Ts, H);
  for (int64_t t = 0; t < Ts; ++t) {
    CellForward(w, L.encoder_fw, fw, At(emb_src.x, t * B * H), t, t, t + 1, &live_src[static_cast<size_t>(t)]);
  }
  for (int64_t t = Ts - 1; t >= 0; --t) {
    CellForward(w, L.encoder_bw, bw, At(emb_src.x, t * B * H), t, t + 1, t, &live_src[static_cast<size_t>(t)]);
  }
  const int layers = cfg.encoder_layers;
  enc_out.resize(static_cast<size_t>(layers));
  enc.resize(static_cast<size_t>(layers - 1));
  Zero(enc_out[0], static_cast<size_t>(n * 2 * H));
  for (int64_t t = 0; t < Ts; ++t) {
    for (int64_t b = 0; b < B; ++b) {
      if (!live_src[static_cast<size_t>(t)][static_cast<size_t>(b)]) continue;
      float* o = At(enc_out[0], (t * B + b) * 2 * H);
      std::copy_n(At(fw.h, ((t + 1) * B + b) * H), H, o);
      std::copy_n(At(bw.h, (t * B + b) * H), H, o + H);
    }
  }
  for (int i = 1; i < layers; ++i) {
    const GnmtLayout::Lstm& l = L.encoder[static_cast<size_t>(i - 1)];
    LstmRun& r = enc[static_cast<size_t>(i - 1)];
    SizeRun(r, Ts, l.input);
    r.x = enc_out[static_cast<size_t>(i - 1)];
    Dropout(ctx, kSiteEncoderLayer + static_cast<uint64_t>(i), r.x.data(), n * l.input, r.drop);
    for (int64_t t = 0; t < Ts; ++t) {
      CellForward(w, l, r, At(r.x, t * B * l.input), t, t, t + 1, &live_src[static_cast<size_t>(t)]);
    }
    Vec& out = enc_out[static_cast<size_t>(i)];
    Zero(out, static_cast<size_t>(n * H));
    for (int64_t t = 0; t < Ts; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        if (!live_src[static_cast<size_t>(t)][static_cast<size_t>(b)]) continue;
        float* o = At(out, (t * B + b) * H);
        std::copy_n(At(r.h, ((t + 1) * B + b) * H), H, o);
        if (i >= 2) AddInto(At(enc_out[static_cast<size_t>(i - 1)], (t * B + b) * H), o, H);
      }
    }
  }
  // The memory [B][Ts][H] and its keys (the memory layer, once per sequence).
  Zero(memory, static_cast<size_t>(n * H));
  const Vec& enc_top = enc_out.back();
  for (int64_t t = 0; t < Ts; ++t) {
    for (int64_t b = 0; b < B; ++b) std::copy_n(enc_top.data() + (t * B + b) * H, H, At(memory, (b * Ts + t) * H));
  }
  keys.resize(memory.size());
  MatMul(n, H, H, memory.data(), H, false, w + L.memory, H, false, keys.data(), H, false, prec, 1);
  return Status::Ok();
}

Result<std::pair<double, int64_t>> GnmtCore::Impl::Train(const float* w, const translation::PackedRows& rows,
                                                         const StepContext& ctx, float* grad) {
  const GnmtLayout& L = layout;
  B = rows.rows;
  if (B < 1) return Status::InvalidArgument("gnmt: an empty batch");
  const int64_t len = rows.length;
  src_len.assign(static_cast<size_t>(B), 0);
  std::vector<int32_t> tgt_len(static_cast<size_t>(B), 0);
  Ts = Tt = 0;
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < len; ++t) {
      const size_t at = static_cast<size_t>(b * len + t);
      for (int32_t id : {rows.inputs[at], rows.targets[at]}) {
        if (id < 0 || id >= cfg.vocab) {
          return Status::InvalidArgument("gnmt: token id " + std::to_string(id) + " outside the vocabulary of " +
                                         std::to_string(cfg.vocab));
        }
      }
      src_len[static_cast<size_t>(b)] += rows.inputs_segmentation[at] != 0;
      tgt_len[static_cast<size_t>(b)] += rows.targets_segmentation[at] != 0;
    }
    if (src_len[static_cast<size_t>(b)] == 0 || tgt_len[static_cast<size_t>(b)] == 0) {
      return Status::InvalidArgument("gnmt: row " + std::to_string(b) + " has an empty source or target");
    }
    Ts = std::max<int64_t>(Ts, src_len[static_cast<size_t>(b)]);
    Tt = std::max<int64_t>(Tt, tgt_len[static_cast<size_t>(b)]);
  }
  src_ids.assign(static_cast<size_t>(Ts * B), kEosId);
  tgt_out.assign(static_cast<size_t>(Tt * B), kEosId);
  tgt_in.assign(static_cast<size_t>(Tt * B), kEosId);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t t = 0; t < src_len[static_cast<size_t>(b)]; ++t) {
      src_ids[static_cast<size_t>(t * B + b)] = rows.inputs[static_cast<size_t>(b * len + t)];
    }
    for (int64_t t = 0; t < tgt_len[static_cast<size_t>(b)]; ++t) {
      tgt_out[static_cast<size_t>(t * B + b)] = rows.targets[static_cast<size_t>(b * len + t)];
    }
    tgt_in[static_cast<size_t>(b)] = kStartId;
    for (int64_t t = 1; t < Tt; ++t) tgt_in[static_cast<size_t>(t * B + b)] = tgt_out[static_cast<size_t>((t - 1) * B + b)];
  }
  PODBENCH_RETURN_IF_ERROR(Encode(w, ctx));

  // ---- decoder forward: layer 0 and the attention over every position, then each upper layer.
  const int layers = cfg.decoder_layers;
  const int64_t m = Tt * B;
  dec.resize(static_cast<size_t>(layers));
  dec_out.resize(static_cast<size_t>(layers));
  Zero(emb_tgt.x, static_cast<size_t>(m * H));
  kernels::EmbeddingLookup(w + L.embedding, cfg.vocab, H, tgt_in.data(), m, emb_tgt.x.data());
  Dropout(ctx, kSiteTargetEmbedding, emb_tgt.x.data(), m * H, emb_tgt.drop);
  Zero(att, static_cast<size_t>((Tt + 1) * B * H));
  Zero(query, static_cast<size_t>(m * H));
  Zero(att_tanh, static_cast<size_t>(m * Ts * H));
  Zero(att_probs, static_cast<size_t>(m * Ts));
  const kernels::BahdanauShape as{B, Ts, H, H};
  const float g = w[L.attention_g];
  {
    LstmRun& r = dec[0];
    SizeRun(r, Tt, 2 * H);
    Zero(dec_out[0], static_cast<size_t>(m * H));
    for (int64_t t = 0; t < Tt; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        float* x = At(r.x, (t * B + b) * 2 * H);
        std::copy_n(At(emb_tgt.x, (t * B + b) * H), H, x);
        std::copy_n(At(att, (t * B + b) * H), H, x + H);
      }
      CellForward(w, L.decoder[0], r, At(r.x, t * B * 2 * H), t, t, t + 1, nullptr);
      const float* h0 = At(r.h, (t + 1) * B * H);
      std::copy_n(h0, B * H, At(dec_out[0], t * B * H));
      MatMul(B, H, H, h0, H, false, w + L.query, H, false, At(query, t * B * H), H, false, prec, 1);
      kernels::BahdanauForward(as, keys.data(), memory.data(), At(query, t * B * H), w + L.attention_v, g,
                               w + L.attention_b, src_len.data(), At(att_tanh, t * B * Ts * H),
                               At(att_probs, t * B * Ts), At(att, (t + 1) * B * H));
    }
  }
  for (int l = 1; l < layers; ++l) {
    LstmRun& r = dec[static_cast<size_t>(l)];
    SizeRun(r, Tt, 2 * H);
    for (int64_t t = 0; t < Tt; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        float* x = At(r.x, (t * B + b) * 2 * H);
        std::copy_n(At(dec_out[static_cast<size_t>(l - 1)], (t * B + b) * H), H, x);
        std::copy_n(At(att, ((t + 1) * B + b) * H), H, x + H);
      }
    }
    Dropout(ctx, kSiteDecoderLayer + static_cast<uint64_t>(l), r.x.data(), m * 2 * H, r.drop);
    for (int64_t t = 0; t < Tt; ++t) {
      CellForward(w, L.decoder[static_cast<size_t>(l)], r, At(r.x, t * B * 2 * H), t, t, t + 1, nullptr);
    }
    Vec& out = dec_out[static_cast<size_t>(l)];
    out.assign(r.h.begin() + B * H, r.h.end());
    if (l >= 2) AddInto(dec_out[static_cast<size_t>(l - 1)].data(), out.data(), m * H);
  }

  // ---- loss over the kept positions: fp32 projection, label smoothing, summed.
  std::fill_n(grad, L.total, 0.0f);
  kept.clear();
  std::vector<int32_t> labels;
  for (int64_t i = 0; i < m; ++i) {
    if (cfg.eos_loss == EosLoss::kMasked && tgt_out[static_cast<size_t>(i)] == kEosId) continue;
    kept.push_back(i);
    labels.push_back(tgt_out[static_cast<size_t>(i)]);
  }
  const auto n = static_cast<int64_t>(kept.size());
  if (n == 0) return std::pair<double, int64_t>{0.0, 0};
  const Vec& out_top = dec_out.back();
  top.resize(static_cast<size_t>(n * H));
  for (int64_t k = 0; k < n; ++k) std::copy_n(out_top.data() + kept[static_cast<size_t>(k)] * H, H, At(top, k * H));
  const int64_t V = cfg.vocab;
  logits.resize(static_cast<size_t>(n * V));
  MatMul(n, V, H, top.data(), H, false, w + L.projection, V, false, logits.data(), V, false, Precision::kF32, 1);
  Vec dlogits(static_cast<size_t>(n * V));
  const double loss =
      kernels::SoftmaxCrossEntropy(logits.data(), labels.data(), n, V, cfg.label_smoothing, dlogits.data()) *
      static_cast<double>(n);
  kernels::Scale(static_cast<float>(n), dlogits.data(), dlogits.data(), n * V);  // the gradient of the sum
  MatMul(H, V, n, top.data(), H, true, dlogits.data(), V, false, grad + L.projection, V, true, Precision::kF32, 1);
  Vec dtop(static_cast<size_t>(n * H));
  MatMul(n, H, V, dlogits.data(), V, false, w + L.projection, V, true, dtop.data(), H, false, Precision::kF32, 1);

  // ---- decoder backward: upper layers (every position), then layer 0 with the attention.
  std::vector<Vec> ddec(static_cast<size_t>(layers), Vec(static_cast<size_t>(m * H), 0.0f));
  for (int64_t k = 0; k < n; ++k) {
    AddInto(At(dtop, k * H), At(ddec.back(), kept[static_cast<size_t>(k)] * H), H);
  }
  Vec datt(static_cast<size_t>((Tt + 1) * B * H), 0.0f);
  Vec dh(static_cast<size_t>(B * H)), dc(static_cast<size_t>(B * H));
  for (int l = layers - 1; l >= 1; --l) {
    LstmRun& r = dec[static_cast<size_t>(l)];
    Vec dx(static_cast<size_t>(m * 2 * H));
    std::fill(dh.begin(), dh.end(), 0.0f);
    std::fill(dc.begin(), dc.end(), 0.0f);
    Vec& d_out = ddec[static_cast<size_t>(l)];
    for (int64_t t = Tt - 1; t >= 0; --t) {
      AddInto(At(d_out, t * B * H), dh.data(), B * H);
      CellBackward(w, L.decoder[static_cast<size_t>(l)], r, At(r.x, t * B * 2 * H), t, t, t + 1, nullptr, dh, dc,
                   At(dx, t * B * 2 * H), grad);
    }
    DropoutBackward(r.drop, dx.data(), m * 2 * H);
    Vec& below = ddec[static_cast<size_t>(l - 1)];
    for (int64_t i = 0; i < m; ++i) {
      AddInto(At(dx, i * 2 * H), At(below, i * H), H);
      AddInto(At(dx, i * 2 * H + H), At(datt, B * H + i * H), H);
    }
    if (l >= 2) AddInto(d_out.data(), below.data(), m * H);
  }
  Vec dkeys(static_cast<size_t>(B * Ts * H), 0.0f), dmemory(static_cast<size_t>(B * Ts * H), 0.0f);
  {
    LstmRun& r = dec[0];
    std::fill(dh.begin(), dh.end(), 0.0f);
    std::fill(dc.begin(), dc.end(), 0.0f);
    Vec da_next(static_cast<size_t>(B * H), 0.0f), da(static_cast<size_t>(B * H)), dq(static_cast<size_t>(B * H)),
        dx0(static_cast<size_t>(B * 2 * H)), demb(static_cast<size_t>(m * H));
    for (int64_t t = Tt - 1; t >= 0; --t) {
      kernels::Add(At(datt, (t + 1) * B * H), da_next.data(), da.data(), B * H);
      kernels::BahdanauBackward(as, memory.data(), w + L.attention_v, g, src_len.data(), At(att_tanh, t * B * Ts * H),
                                At(att_probs, t * B * Ts), da.data(), dkeys.data(), dmemory.data(), dq.data(),
                                grad + L.attention_v, grad + L.attention_g, grad + L.attention_b);
      const float* h0 = At(r.h, (t + 1) * B * H);
      AddInto(At(ddec[0], t * B * H), dh.data(), B * H);
      MatMul(B, H, H, dq.data(), H, false, w + L.query, H, true, dh.data(), H, true, prec, 1);
      MatMul(H, H, B, h0, H, true, dq.data(), H, false, grad + L.query, H, true, prec, 1);
      CellBackward(w, L.decoder[0], r, At(r.x, t * B * 2 * H), t, t, t + 1, nullptr, dh, dc, dx0.data(), grad);
      for (int64_t b = 0; b < B; ++b) {
        std::copy_n(At(dx0, b * 2 * H), H, At(demb, (t * B + b) * H));
        std::copy_n(At(dx0, b * 2 * H + H), H, At(da_next, b * H));
      }
    }
    DropoutBackward(emb_tgt.drop, demb.data(), m * H);
    kernels::EmbeddingGrad(demb.data(), tgt_in.data(), m, cfg.vocab, H, grad + L.embedding);
  }

  // ---- encoder backward.
  const int64_t ns = Ts * B;
  MatMul(ns, H, H, dkeys.data(), H, false, w + L.memory, H, true, dmemory.data(), H, true, prec, 1);
  MatMul(H, H, ns, memory.data(), H, true, dkeys.data(), H, false, grad + L.memory, H, true, prec, 1);
  Vec dout(static_cast<size_t>(ns * H));
  for (int64_t t = 0; t < Ts; ++t) {
    for (int64_t b = 0; b < B; ++b) std::copy_n(At(dmemory, (b * Ts + t) * H), H, At(dout, (t * B + b) * H));
  }
  auto mask_padding = [&](Vec& d, int64_t width) {
    for (int64_t t = 0; t < Ts; ++t) {
      for (int64_t b = 0; b < B; ++b) {
        if (!live_src[static_cast<size_t>(t)][static_cast<size_t>(b)]) std::fill_n(At(d, (t * B + b) * width), width, 0.f);
      }
    }
  };
  for (int i = cfg.encoder_layers - 1; i >= 1; --i) {
    const GnmtLayout::Lstm& l = L.encoder[static_cast<size_t>(i - 1)];
    LstmRun& r = enc[static_cast<size_t>(i - 1)];
    mask_padding(dout, H);
    Vec dprev(static_cast<size_t>(ns * l.input), 0.0f);
    std::fill(dh.begin(), dh.end(), 0.0f);
    std::fill(dc.begin(), dc.end(), 0.0f);
    for (int64_t t = Ts - 1; t >= 0; --t) {
      AddInto(At(dout, t * B * H), dh.data(), B * H);
      CellBackward(w, l, r, At(r.x, t * B * l.input), t, t, t + 1, &live_src[static_cast<size_t>(t)], dh, dc,
                   At(dprev, t * B * l.input), grad);
    }
    DropoutBackward(r.drop, dprev.data(), ns * l.input);
    if (i >= 2) AddInto(dout.data(), dprev.data(), ns * H);
    dout = std::move(dprev);
  }
  mask_padding(dout, 2 * H);
  Vec demb(static_cast<size_t>(ns * H), 0.0f), dxs(static_cast<size_t>(B * H));
  for (int dir = 0; dir < 2; ++dir) {
    std::fill(dh.begin(), dh.end(), 0.0f);
    std::fill(dc.begin(), dc.end(), 0.0f);
    for (int64_t k = 0; k < Ts; ++k) {
      const int64_t t = dir == 0 ? Ts - 1 - k : k;
      for (int64_t b = 0; b < B; ++b) AddInto(At(dout, (t * B + b) * 2 * H + dir * H), At(dh, b * H), H);
      const auto* live = &live_src[static_cast<size_t>(t)];
      if (dir == 0) {
        CellBackward(w, L.encoder_fw, fw, At(emb_src.x, t * B * H), t, t, t + 1, live, dh, dc, dxs.data(), grad);
      } else {
        CellBackward(w, L.encoder_bw, bw, At(emb_src.x, t * B * H), t, t + 1, t, live, dh, dc, dxs.data(), grad);
      }
      AddInto(dxs.data(), At(demb, t * B * H), B * H);
    }
  }
  DropoutBackward(emb_src.drop, demb.data(), ns * H);
  kernels::EmbeddingGrad(demb.data(), src_ids.data(), ns, cfg.vocab, H, grad + L.embedding);
  return std::pair<double, int64_t>{loss, n};
}

GnmtCore::GnmtCore(const GnmtConfig& config, const GnmtLayout& layout)
    : impl_(std::make_unique<Impl>(config, layout)) {}
GnmtCore::~GnmtCore() = default;

Result<std::pair<double, int64_t>> GnmtCore::TrainStep(const float* w, const translation::PackedRows& rows,
                                                        const StepContext& ctx, float* grad) {
  return impl_->Train(w, rows, ctx, grad);
}

int64_t GnmtCore::source_length() const { return impl_->Ts; }

Status GnmtCore::StartDecoding(const float* w, const std::vector<std::span<const int32_t>>& sources) {
  Impl& m = *impl_;
  if (sources.empty()) return Status::InvalidArgument("gnmt: no sentences to decode");
  m.B = static_cast<int64_t>(sources.size());
  m.src_len.assign(sources.size(), 0);
  m.Ts = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    if (sources[i].empty()) return Status::InvalidArgument("gnmt: source sentence " + std::to_string(i) + " is empty");
    for (int32_t id : sources[i]) {
      if (id < 0 || id >= m.cfg.vocab) return Status::InvalidArgument("gnmt: source id outside the vocabulary");
    }
    m.src_len[i] = static_cast<int32_t>(sources[i].size());
    m.Ts = std::max<int64_t>(m.Ts, m.src_len[i]);
  }
  m.src_ids.assign(static_cast<size_t>(m.Ts * m.B), kEosId);
  for (size_t i = 0; i < sources.size(); ++i) {
    for (size_t t = 0; t < sources[i].size(); ++t) m.src_ids[t * sources.size() + i] = sources[i][t];
  }
  StepContext ctx;
  ctx.training = false;
  PODBENCH_RETURN_IF_ERROR(m.Encode(w, ctx));
  m.decode_w = w;
  m.n_sent = m.B;
  m.dec_len = m.src_len;
  m.dec_memory = m.memory;
  m.dec_keys = m.keys;
  m.decode_rows = 0;
  return Status::Ok();
}

Status GnmtCore::DecodeStep(std::span<const int32_t> parent_rows, std::span<const int32_t> sentences,
                            std::span<const int32_t> tokens, std::span<float> log_probs, std::span<float> attention) {
  Impl& m = *impl_;
  const GnmtLayout& L = m.layout;
  const float* w = m.decode_w;
  if (w == nullptr) return Status::FailedPrecondition("gnmt: DecodeStep before StartDecoding");
  const auto R = static_cast<int64_t>(tokens.size());
  const int64_t H = m.H, V = m.cfg.vocab, Ts = m.Ts;
  if (static_cast<int64_t>(parent_rows.size()) != R || static_cast<int64_t>(sentences.size()) != R ||
      static_cast<int64_t>(log_probs.size()) != R * V || (!attention.empty() && static_cast<int64_t>(attention.size()) != R * Ts)) {
    return Status::InvalidArgument("gnmt: DecodeStep spans of inconsistent sizes");
  }
  const int layers = m.cfg.decoder_layers;
  // Gather the state every row continues (zero at the first step).
  std::vector<Vec> h(static_cast<size_t>(layers), Vec(static_cast<size_t>(R * H), 0.f)), c = h;
  Vec a_prev(static_cast<size_t>(R * H), 0.f);
  for (int64_t r = 0; r < R; ++r) {
    const int32_t p = parent_rows[static_cast<size_t>(r)];
    const int32_t s = sentences[static_cast<size_t>(r)];
    if (s < 0 || s >= m.n_sent || tokens[static_cast<size_t>(r)] < 0 || tokens[static_cast<size_t>(r)] >= V) {
      return Status::InvalidArgument("gnmt: DecodeStep row with a bad sentence or token");
    }
    if (p < 0) continue;
    if (p >= m.decode_rows) return Status::InvalidArgument("gnmt: DecodeStep parent row out of range");
    for (int l = 0; l < layers; ++l) {
      std::copy_n(At(m.st_h[static_cast<size_t>(l)], p * H), H, At(h[static_cast<size_t>(l)], r * H));
      std::copy_n(At(m.st_c[static_cast<size_t>(l)], p * H), H, At(c[static_cast<size_t>(l)], r * H));
    }
    std::copy_n(At(m.st_att, p * H), H, At(a_prev, r * H));
  }
  Vec keys(static_cast<size_t>(R * Ts * H)), mem(keys.size());
  std::vector<int32_t> lens(static_cast<size_t>(R));
  for (int64_t r = 0; r < R; ++r) {
    const int64_t s = sentences[static_cast<size_t>(r)];
    std::copy_n(At(m.dec_keys, s * Ts * H), Ts * H, At(keys, r * Ts * H));
    std::copy_n(At(m.dec_memory, s * Ts * H), Ts * H, At(mem, r * Ts * H));
    lens[static_cast<size_t>(r)] = m.dec_len[static_cast<size_t>(s)];
  }
  Vec x(static_cast<size_t>(R * 2 * H)), gates(static_cast<size_t>(R * 4 * H)), hn(static_cast<size_t>(R * H)),
      cn(hn.size()), q(hn.size()), a(hn.size()), th(static_cast<size_t>(R * Ts * H)), probs(static_cast<size_t>(R * Ts));
  const kernels::LstmShape s{R, 2 * H, H};
  kernels::EmbeddingLookup(w + L.embedding, V, H, tokens.data(), R, hn.data());
  for (int64_t r = 0; r < R; ++r) {
    std::copy_n(At(hn, r * H), H, At(x, r * 2 * H));
    std::copy_n(At(a_prev, r * H), H, At(x, r * 2 * H + H));
  }
  auto cell = [&](int l) {
    const GnmtLayout::Lstm& cl = L.decoder[static_cast<size_t>(l)];
    kernels::LstmCellForward(s, x.data(), h[static_cast<size_t>(l)].data(), c[static_cast<size_t>(l)].data(),
                             w + cl.w, w + cl.b, gates.data(), cn.data(), hn.data(), 1, m.prec);
    h[static_cast<size_t>(l)] = hn;
    c[static_cast<size_t>(l)] = cn;
  };
  cell(0);
  MatMul(R, H, H, h[0].data(), H, false, w + L.query, H, false, q.data(), H, false, m.prec, 1);
  kernels::BahdanauForward({R, Ts, H, H}, keys.data(), mem.data(), q.data(), w + L.attention_v, w[L.attention_g],
                           w + L.attention_b, lens.data(), th.data(), probs.data(), a.data());
  Vec o = h[0];
  for (int l = 1; l < layers; ++l) {
    for (int64_t r = 0; r < R; ++r) {
      std::copy_n(At(o, r * H), H, At(x, r * 2 * H));
      std::copy_n(At(a, r * H), H, At(x, r * 2 * H + H));
    }
    cell(l);
    if (l >= 2) {
      Vec sum = h[static_cast<size_t>(l)];
      AddInto(o.data(), sum.data(), R * H);
      o = std::move(sum);
    } else {
      o = h[static_cast<size_t>(l)];
    }
  }
  MatMul(R, V, H, o.data(), H, false, w + L.projection, V, false, log_probs.data(), V, false, Precision::kF32, 1);
  for (int64_t r = 0; r < R; ++r) {
    float* row = log_probs.data() + r * V;
    const float best = *std::max_element(row, row + V);
    double sum = 0;
    for (int64_t v = 0; v < V; ++v) sum += std::exp(double(row[v]) - best);
    const auto lse = static_cast<float>(best + std::log(sum));
    for (int64_t v = 0; v < V; ++v) row[v] -= lse;
  }
  if (!attention.empty()) std::copy(probs.begin(), probs.end(), attention.begin());
  m.st_h = std::move(h);
  m.st_c = std::move(c);
  m.st_att = std::move(a);
  m.decode_rows = R;
  return Status::Ok();
}

}  // namespace podbench::gnmt
