#include "workloads/transformer/transformer_graph.h"

#include <string>
#include <utility>

#include "workloads/projection/graph_builder.h"
#include "workloads/transformer/transformer_google_v06.h"

namespace podbench::transformer {
namespace {

using projection::DType;
using projection::OpWriter;

constexpr const char* kSharedEmbedding = "shared_embedding";

// Dropout (a compare, a select, a scale per element) and the residual add.
constexpr double kDropoutResidualOps = 4;

// One attention sublayer: layer norm and Q over `m` query rows, K and V over
// `kv_rows` rows (0: computed before, as the decoder's cached cross-attention
// keys), attention of `m` queries over `tk` keys, output projection, dropout
// and residual.
void WriteAttention(OpWriter& w, const std::string& n, const TransformerGraphOptions& o, int64_t m,
                    int64_t kv_rows, int64_t tk, bool causal) {
  const int64_t d = o.d_model;
  w.LayerNorm(n + ".ln", m, d);
  w.Dense(n + ".q", m, d, d, /*bias=*/false);
  if (kv_rows > 0) {
    w.Dense(n + ".k", kv_rows, d, d, false);
    w.Dense(n + ".v", kv_rows, d, d, false);
  }
  w.Add(n + ".attention", projection::AttentionAttrs{o.heads, m, tk, d / o.heads, causal, /*additive=*/false});
  w.Dense(n + ".o", m, d, d, false);
  w.Fused(n + ".dropout_residual", m * d, kDropoutResidualOps, 2);
}

// The feed-forward sublayer over `m` rows.
void WriteFeedForward(OpWriter& w, const std::string& n, const TransformerGraphOptions& o, int64_t m) {
  w.LayerNorm(n + ".ln", m, o.d_model);
  w.Dense(n + ".in", m, o.d_model, o.filter, /*bias=*/true);
  w.Fused(n + ".relu_dropout", m * o.filter, kDropoutResidualOps);
  w.Dense(n + ".out", m, o.filter, o.d_model, true);
  w.Fused(n + ".dropout_residual", m * o.d_model, kDropoutResidualOps, 2);
}

// The embedding lookup of `tokens` ids into the shared table, scaled, with
// positions and dropout added.
void WriteEmbedding(OpWriter& w, const std::string& n, const TransformerGraphOptions& o, int64_t tokens) {
  const bool saved = w.defaults.needs_input_grad;
  w.defaults.needs_input_grad = false;  // token ids
  // The softmax reads this table too, so its gradient is dense.
  w.Add(n, projection::EmbeddingAttrs{tokens, o.vocab, o.d_model},
        {w.Param(kSharedEmbedding, {o.vocab, o.d_model})});
  w.defaults.needs_input_grad = saved;
  w.Fused(n + ".scale_position_dropout", tokens * o.d_model, 5);
}

void WriteEncoder(OpWriter& w, const TransformerGraphOptions& o, int64_t tokens) {
  WriteEmbedding(w, "enc.embed", o, tokens);
  for (int64_t l = 0; l < o.layers; ++l) {
    const std::string n = "enc.layer" + std::to_string(l);
    WriteAttention(w, n + ".self", o, tokens, tokens, tokens, /*causal=*/false);
    WriteFeedForward(w, n + ".ffn", o, tokens);
  }
  w.LayerNorm("enc.ln", tokens, o.d_model);
}

// The logits of `rows` decoder outputs through the shared table.
void WriteLogits(OpWriter& w, const TransformerGraphOptions& o, int64_t rows) {
  w.Add("logits", projection::MatMulAttrs{rows, o.d_model, o.vocab, false},
        {w.Param(kSharedEmbedding, {o.vocab, o.d_model})});
}

Status Validate(const TransformerGraphOptions& o) {
  const std::pair<const char*, int64_t> sizes[] = {
      {"vocab", o.vocab},          {"layers", o.layers},
      {"d_model", o.d_model},      {"filter", o.filter},
      {"heads", o.heads},          {"packed_length", o.packed_length},
      {"decode_input_length", o.decode_input_length}, {"beam", o.beam}};
  for (const auto& [name, v] : sizes) {
    if (v < 1) return Status::InvalidArgument(std::string("transformer graph: ") + name + " " + std::to_string(v) +
                                              " must be >= 1");
  }
  if (o.extra_decode_length < 0) {
    return Status::InvalidArgument("transformer graph: extra_decode_length " + std::to_string(o.extra_decode_length) +
                                   " must be >= 0");
  }
  if (o.d_model % o.heads != 0) {
    return Status::InvalidArgument("transformer graph: heads " + std::to_string(o.heads) + " must divide d_model " +
                                   std::to_string(o.d_model));
  }
  return Status::Ok();
}

}  // namespace

Result<projection::ModelGraph> BuildTransformerGraph(const TransformerGraphOptions& o) {
  PODBENCH_RETURN_IF_ERROR(Validate(o));
  projection::ModelGraph g;
  g.name = "transformer";
  g.description = "Transformer big, " + std::to_string(o.layers) + "+" + std::to_string(o.layers) + " layers, " +
                  std::to_string(o.d_model) + "/" + std::to_string(o.filter) + ", " + std::to_string(o.heads) +
                  " heads, shared vocabulary of " + std::to_string(o.vocab);
  g.example_unit = "packed example of " + std::to_string(o.packed_length) + "+" + std::to_string(o.packed_length) +
                   " tokens (eval: one source sentence, beam " + std::to_string(o.beam) + ")";

  // Host work. Infeed: a packed example is six int32 vectors of the packed
  // length (inputs, targets and their segment ids and positions; T2T's
  // packed problem). Outfeed: the best beam's decoded ids of a sentence.
  g.host.infeed_bytes = 6.0 * double(o.packed_length) * 4;
  g.host.outfeed_bytes = double(o.decode_input_length + o.extra_decode_length) * 4;
  // Scoring, counted from the work in the host's main thread (T2T's Python,
  // 2019), in scalar operations of about a nanosecond of CPython each (the
  // convention of SSD's COCO count, ssd_graph.cc), for one newstest2014
  // sentence (3,003 sentences of about 21 words; about 30 subwords):
  //   three subword decodes (source, hypothesis and reference, as T2T's
  //     decoding.log_decode_results decodes them): ids to strings and
  //     their join (30 x 400), split and unescape each word (a regex
  //     callback, 21 x 1,500), detokenise (21 x 600): 3 x 56,100       168,300
  //   logging the input and output lines (tf.logging), 2 x 30,000       60,000
  //   BLEU tokenisation of hypothesis and reference: three regex
  //     passes over ~130 characters of large Unicode classes, x 50      39,000
  //   n-grams of orders 1-4 of both (slice, tuple, hash, Counter
  //     update), 2 x ~80 x 500                                           80,000
  //   clipped overlap (Counter intersection) and matches per order,
  //     ~100 keys x 400                                                  40,000
  //   per sentence: strip EOS and padding, append, collect              20,000
  // The rate these operations run at is the system file's
  // host.scoring_ops_per_s, which `podbench calibrate` fits to the published
  // scoring windows the models declare (this one's BLEU among them). The
  // main thread scores one evaluation after the other (scoring_pool 1).
  g.host.score_ops = 3 * 56100 + 60000 + 39000 + 80000 + 40000 + 20000;
  g.host.scoring_processes = 1;

  const int64_t t = o.packed_length;
  OpWriter train(&g, &g.train);
  WriteEncoder(train, o, t);
  WriteEmbedding(train, "dec.embed", o, t);
  for (int64_t l = 0; l < o.layers; ++l) {
    const std::string n = "dec.layer" + std::to_string(l);
    WriteAttention(train, n + ".self", o, t, t, t, /*causal=*/true);
    WriteAttention(train, n + ".cross", o, t, t, t, /*causal=*/false);
    WriteFeedForward(train, n + ".ffn", o, t);
  }
  train.LayerNorm("dec.ln", t, o.d_model);
  WriteLogits(train, o, t);
  train.defaults.dtype = DType::kF32;
  train.Add("loss", projection::SoftmaxXentAttrs{t, o.vocab});

  // Evaluation: encode the padded source once, then decode step by step, each
  // of the beams an instance. The cross-attention keys and values of the
  // (beam-tiled) encoder output are computed once before the loop.
  const int64_t s = o.decode_input_length, steps = o.decode_input_length + o.extra_decode_length;
  OpWriter eval(&g, &g.eval);
  WriteEncoder(eval, o, s);
  eval.defaults.instances = o.beam;
  for (int64_t l = 0; l < o.layers; ++l) {
    const std::string n = "dec.layer" + std::to_string(l) + ".cross";
    eval.Dense(n + ".k", s, o.d_model, o.d_model, false);
    eval.Dense(n + ".v", s, o.d_model, o.d_model, false);
  }
  eval.defaults.sequential_steps = steps;
  WriteEmbedding(eval, "dec.embed", o, 1);
  for (int64_t l = 0; l < o.layers; ++l) {
    const std::string n = "dec.layer" + std::to_string(l);
    WriteAttention(eval, n + ".self", o, 1, 1, steps, /*causal=*/false);  // the cache masks unwritten slots
    WriteAttention(eval, n + ".cross", o, 1, 0, s, false);
    WriteFeedForward(eval, n + ".ffn", o, 1);
  }
  eval.LayerNorm("dec.ln", 1, o.d_model);
  WriteLogits(eval, o, 1);
  eval.defaults.dtype = DType::kF32;
  // Log-softmax, the length penalty and the beam's top-k over its logits.
  eval.Elementwise("beam_search", o.vocab, 6);
  return g;
}

}  // namespace podbench::transformer
