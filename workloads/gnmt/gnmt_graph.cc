#include "workloads/gnmt/gnmt_graph.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "workloads/gnmt/gnmt_google_v06.h"
#include "workloads/projection/graph_builder.h"

namespace podbench::gnmt {
namespace {

using projection::DType;
using projection::OpWriter;

constexpr const char* kSharedEmbedding = "embedding_share";
constexpr double kDropoutOps = 3;  // compare, select, scale
// A softmax cross entropy's forward alone: max, exp, sum, log and the
// target's pick (kernels::SoftmaxXentCost counts 8 with the gradient).
constexpr double kSoftmaxForwardOps = 5;

// A step's lengths: the loops' time steps (the batch's longest sentence),
// the records' padded positions, over which Google's code runs everything
// outside the loops, and whether it is a training step.
struct Lengths {
  int64_t steps = 1;
  int64_t record = 1;
  bool training = false;
};

constexpr int64_t kChunkRows = 512;  // G/model.py: "512 batch dimension yields best tpu efficiency"

// The positions a chunk of Google's chunked loops holds (max(1, 512 / B)),
// or 0 for the direct path (GnmtGraphOptions::replica_batch):
// B x record under 1024, or, where `whole_chunks`, not a multiple of 512
// (input_projection's test; the loss reshapes without one).
int64_t ChunkPositions(int64_t b, int64_t record, bool whole_chunks) {
  const int64_t rows = b * record;
  if (b == 0 || rows < 1024 || (whole_chunks && rows % kChunkRows != 0)) return 0;
  return std::max<int64_t>(1, kChunkRows / b);
}

// Chunks of `factor` positions up to the one holding step `steps`; 1 on the
// direct path (factor 0).
int64_t ChunksFor(int64_t steps, int64_t factor) { return factor == 0 ? 1 : (steps + factor - 1) / factor; }

// A per-position matmul of a training step, [positions, k] x [k, n], as
// Google's code runs it: one matmul over every padded position, or `chunks`
// ops of `factor` positions each (forward and backward per chunk).
void PositionMatMul(OpWriter& w, const std::string& n, int64_t factor, int64_t chunks, int64_t record, int64_t k,
                    int64_t out, std::vector<std::string> params) {
  w.Add(n, projection::MatMulAttrs{factor == 0 ? record : factor, k, out, false}, std::move(params))
      .sequential_steps = chunks;
}

// Forward work the backward pass does again (Op::recomputed): no gradient of
// its own and no parameter.
projection::Op& AddRecomputed(OpWriter& w, const std::string& n, projection::OpAttrs attrs) {
  projection::Op& op = w.Add(n, std::move(attrs));
  op.needs_input_grad = false;
  op.recomputed = true;
  return op;
}

// One LSTM layer (one direction) over `len.steps`: its input kernels
// ([width, 4 x units] each, named), the recurrent kernel and the bias.
// `hoisted` input kernels are applied to every step's input before the loop
// (an op "<n>.input" each), so the loop multiplies only the recurrent kernel
// and the others: an input known before the loop (the layer below's outputs,
// the embedded targets in training) needs no step of its own, as Google's
// custom LSTM splits the input kernel from the recurrent one
// (lstm_cell_split; ../shared/reference/gnmt-v0.6.md §1). In training the
// hoisted projection is G/model.py's `input_projection` (PositionMatMul), and
// the loop's weight gradients contract over the state buffer's record - 1
// steps, whatever the loop ran (`build_rnn`'s dtheta["kernel"] and
// ["attention_kernel"] from acc_state, 318-333).
//
// Training also writes the zeros its loops start from ("<n>.zeros", HBM
// writes of bf16 over every padded position): build_rnn's state buffers (h
// and c, and the attention on the first decoder layer) and its saved gates,
// the backward loop's input gradient and the sums of any per-example tensor
// the loop reads (`accumulated`, per position: the attention's keys and
// values), and, where the input projection runs in chunks, its output and
// input gradient. That XLA writes a loop's initial zeros to HBM is a
// modelling choice; the parameter-sized sums' zeros are not counted.
void WriteLstm(OpWriter& w, const std::string& n, const Lengths& len, int64_t replica_batch, int64_t units,
               const std::vector<std::pair<std::string, int64_t>>& input_kernels, size_t hoisted = 0,
               int64_t state_tensors = 2, int64_t accumulated = 0) {
  std::vector<std::string> params;
  int64_t input = 0;
  const int64_t factor = ChunkPositions(replica_batch, len.record, /*whole_chunks=*/true);
  int64_t zeros = (state_tensors * units + 4 * units + 4 * units + accumulated) * len.record;
  for (size_t i = 0; i < input_kernels.size(); ++i) {
    const auto& [role, width] = input_kernels[i];
    const std::string p = w.Param(n + "/" + role, {width, 4 * units});
    if (i < hoisted) {
      PositionMatMul(w, n + ".input", factor, ChunksFor(len.steps, factor), len.record, width, 4 * units, {p});
      if (factor != 0) zeros += (4 * units + width) * len.record;
      continue;
    }
    params.push_back(p);
    input += width;
  }
  params.push_back(w.Param(n + "/kernel", {units, 4 * units}));
  params.push_back(w.Param(n + "/bias", {4 * units}, /*norm_or_bias=*/true));
  if (len.training) w.Elementwise(n + ".zeros", zeros, /*ops_per_element=*/0, /*inputs=*/0).needs_input_grad = false;
  const int64_t dw_steps = len.training ? std::max<int64_t>(1, len.record - 1) : 0;
  w.Add(n, projection::LstmAttrs{len.steps, input, units, dw_steps}, std::move(params));
}

// An embedding lookup of `tokens` ids into the shared table, and dropout.
void WriteEmbedding(OpWriter& w, const std::string& n, const GnmtGraphOptions& o, int64_t tokens) {
  const bool saved = w.defaults.needs_input_grad;
  w.defaults.needs_input_grad = false;  // token ids
  // Only lookups read this table: its gradient touches the looked-up rows
  // (Google's cross_replica_sum densifies it).
  w.Add(n, projection::EmbeddingAttrs{tokens, o.vocab, o.units},
        {w.Param(kSharedEmbedding, {o.vocab, o.units}, false, /*sparse_gradient=*/true)});
  w.defaults.needs_input_grad = saved;
  w.Fused(n + ".dropout", tokens * o.units, kDropoutOps);
}

// `hoist`: training's input projections before each loop (WriteLstm). The
// lookups, dropouts and residuals run over every padded position.
void WriteEncoder(OpWriter& w, const GnmtGraphOptions& o, const Lengths& len, bool hoist) {
  const int64_t u = o.units, r = len.record, b = o.replica_batch;
  const size_t h = hoist ? 1 : 0;
  WriteEmbedding(w, "enc.embed", o, r);
  WriteLstm(w, "enc.layer0.fw", len, b, u, {{"input_kernel", u}}, h);
  WriteLstm(w, "enc.layer0.bw", len, b, u, {{"input_kernel", u}}, h);
  w.Fused("enc.layer1.dropout", r * 2 * u, kDropoutOps);
  WriteLstm(w, "enc.layer1", len, b, u, {{"input_kernel", 2 * u}}, h);
  for (int l = 2; l <= 3; ++l) {
    const std::string n = "enc.layer" + std::to_string(l);
    w.Fused(n + ".dropout", r * u, kDropoutOps);
    WriteLstm(w, n, len, b, u, {{"input_kernel", u}}, h);
    w.Fused(n + ".residual", r * u, 1, 2);
  }
}

// The decoder over `len.steps` (one op per layer carries its steps; the
// attention's query and scores are per step, as they feed the next one).
// The attention reads every one of the record's source positions (the keys
// are padded to it and masked; G/model.py `attention`). Training's backward
// computes each step's query and attention forward again before their
// gradients (`attention_cell_grad` calls `attention`, 116-139): forward-only
// ops "dec.attention.recompute.*".
void WriteDecoder(OpWriter& w, const GnmtGraphOptions& o, const Lengths& len, bool step_embedding) {
  const int64_t u = o.units, r = len.record, b = o.replica_batch;
  if (step_embedding) {  // decoding: each step looks up the token chosen by the last
    const int64_t saved = w.defaults.sequential_steps;
    w.defaults.sequential_steps = len.steps;
    WriteEmbedding(w, "dec.embed", o, 1);
    w.defaults.sequential_steps = saved;
  } else {
    WriteEmbedding(w, "dec.embed", o, r);
  }
  // Training hoists the embedded targets' projection (the previous
  // attention is known only step by step); decoding hoists nothing.
  const size_t h = step_embedding ? 0 : 1;
  // Its loop carries the attention too, and sums the gradients of the keys
  // and values it reads at every step (build_rnn's dtheta).
  WriteLstm(w, "dec.layer0", len, b, u, {{"input_kernel", u}, {"attention_kernel", u}}, h, /*state_tensors=*/3,
            /*accumulated=*/2 * u);
  const int64_t saved = w.defaults.sequential_steps;
  w.defaults.sequential_steps = len.steps;
  const projection::AttentionAttrs attention{1, 1, r, u, /*causal=*/false, /*additive=*/true};
  w.Dense("dec.attention.query", 1, u, u, /*bias=*/false);
  w.Add("dec.attention", attention,
        {w.Param("dec.attention/v", {u}), w.Param("dec.attention/g", {}, /*norm_or_bias=*/true),
         w.Param("dec.attention/b", {u}, true)});
  if (len.training) {
    AddRecomputed(w, "dec.attention.recompute.query", projection::MatMulAttrs{1, u, u, false});
    // The scores' tanh again, an elementwise producer XLA fuses into the
    // gradient that reads it (a modelling choice): vector work only.
    AddRecomputed(w, "dec.attention.recompute", attention).fused = true;
  }
  w.defaults.sequential_steps = saved;
  for (int l = 1; l <= 3; ++l) {
    const std::string n = "dec.layer" + std::to_string(l);
    w.Fused(n + ".dropout", r * 2 * u, kDropoutOps);  // [output, attention]
    WriteLstm(w, n, len, b, u, {{"input_kernel", 2 * u}}, h);
    if (l >= 2) w.Fused(n + ".residual", r * u, 1, 2);
  }
}

// The fp32 output projection of `rows` decoder outputs.
void WriteProjection(OpWriter& w, const GnmtGraphOptions& o, int64_t rows) {
  w.defaults.dtype = DType::kF32;
  w.Add("projection", projection::MatMulAttrs{rows, o.units, o.vocab, false},
        {w.Param("output_projection", {o.units, o.vocab})});
}

// The training step's output projection and loss (G/model.py 797-826; see
// GnmtGraphOptions::replica_batch), in fp32.
void WriteTrainingLoss(OpWriter& w, const GnmtGraphOptions& o, const Lengths& len) {
  const int64_t factor = ChunkPositions(o.replica_batch, len.record, /*whole_chunks=*/false);
  // (Where factor does not divide the record length, which no published
  // setup has, Google's reshape into 512-row chunks would fail; the chunks
  // are priced as if it did.)
  const int64_t chunks = ChunksFor(len.steps, factor);
  const int64_t rows = factor == 0 ? len.record : factor;
  w.defaults.dtype = DType::kF32;
  PositionMatMul(w, "projection", factor, chunks, len.record, o.units, o.vocab,
                 {w.Param("output_projection", {o.units, o.vocab})});
  const int64_t saved = w.defaults.sequential_steps;
  w.defaults.sequential_steps = chunks;
  w.Add("loss", projection::SoftmaxXentAttrs{rows, o.vocab});
  if (factor != 0) {
    // Recurrent's backward: each chunk's logits and softmax again (no weight
    // of their own: the projection's gradient is priced once per chunk, above).
    AddRecomputed(w, "loss.recompute.projection", projection::MatMulAttrs{rows, o.units, o.vocab, false});
    AddRecomputed(w, "loss.recompute.softmax", projection::ElementwiseAttrs{rows * o.vocab, kSoftmaxForwardOps});
  }
  w.defaults.sequential_steps = saved;
}

Status Validate(const GnmtGraphOptions& o) {
  const std::pair<const char*, int64_t> sizes[] = {{"vocab", o.vocab},
                                                   {"units", o.units},
                                                   {"train_length", o.train_length},
                                                   {"decode_length", o.decode_length},
                                                   {"beam", o.beam}};
  if (o.record_length != 0 && o.record_length < o.train_length) {
    return Status::InvalidArgument("gnmt graph: record_length " + std::to_string(o.record_length) +
                                   " is shorter than train_length " + std::to_string(o.train_length));
  }
  if (o.replica_batch < 0) {
    return Status::InvalidArgument("gnmt graph: replica_batch " + std::to_string(o.replica_batch) +
                                   " must be >= 0");
  }
  if (o.infeed_hosts < 0) {
    return Status::InvalidArgument("gnmt graph: infeed_hosts " + std::to_string(o.infeed_hosts) + " must be >= 0");
  }
  for (const auto& [name, v] : sizes) {
    if (v < 1) {
      return Status::InvalidArgument(std::string("gnmt graph: ") + name + " " + std::to_string(v) + " must be >= 1");
    }
  }
  return Status::Ok();
}

}  // namespace

Result<projection::ModelGraph> BuildGnmtGraph(const GnmtGraphOptions& o) {
  PODBENCH_RETURN_IF_ERROR(Validate(o));
  projection::ModelGraph g;
  g.name = "gnmt";
  g.description = "GNMT, 4+4 LSTM layers of " + std::to_string(o.units) +
                  " (bidirectional first encoder layer), normalized Bahdanau attention, shared vocabulary of " +
                  std::to_string(o.vocab) +
                  (o.vocab == kGnmtVocab ? " (modelled: Google's lies in 32,316-32,319)" : "");
  g.example_unit = "sentence pair of up to " + std::to_string(o.train_length) + "+" +
                   std::to_string(o.train_length) + " tokens (eval: one sentence, beam " + std::to_string(o.beam) +
                   ")";

  // Host work (../shared/reference/gnmt-v0.6.md, "§"). Infeed: a training
  // record as the device receives it, src, tgt_in and tgt_out padded to the
  // record length and the two lengths, int32 (§3: B x 146 int32 at 48).
  // Outfeed: the best beam's 160 decoded ids of a sentence (§4).
  const int64_t record = o.record_length > 0 ? o.record_length : o.train_length;
  g.host.infeed_bytes = double(3 * record + 2) * 4;
  g.host.infeed_hosts = o.infeed_hosts;
  g.host.outfeed_bytes = double(o.decode_length) * 4;
  // Scoring (§4, G/metric.py get_sacrebleu), counted from the work the
  // host's main thread does per newstest2014 sentence (3,003 of about 21
  // words, ~30 subwords), in scalar operations of about a nanosecond of
  // CPython each (the convention of the Transformer's count,
  // transformer_graph.cc), the operation counts of the same steps as there:
  //   ids to strings and the join of the BPE pieces (30 x 400)         12,000
  //   writing the hypothesis file                                        1,000
  //   Moses detokenizer.perl -l de: a per-token loop of ~20 checks and
  //     ~40 substitutions over the line, 21 x 2,000 + 40 x 250         52,000
  //   sacrebleu -t wmt14/full: reading the reference set's SGML with a
  //     regex per line                                                  20,000
  //   lowercasing both (-lc)                                             1,000
  //   the intl tokenizer: three regex passes of Unicode property
  //     classes over ~130 characters, both sides, x 50                  39,000
  //   n-grams of orders 1-4 of both, 2 x ~80 x 500                      80,000
  //   clipped overlap and matches per order, ~100 keys x 400            40,000
  //   the two processes each evaluation starts (perl, and Python
  //     importing sacrebleu and its regex tables, ~4e8 operations),
  //     shared by the 3,003 sentences                                  133,000
  // The rate is the system file's host.scoring_ops_per_s (never a time
  // from GNMT's logs). One main thread scores (scoring_pool 1).
  g.host.score_ops = 12000 + 1000 + 52000 + 20000 + 1000 + 39000 + 80000 + 40000 + 133000;
  g.host.scoring_processes = 1;

  const Lengths train_len{o.train_length, record, /*training=*/true};
  OpWriter train(&g, &g.train);
  WriteEncoder(train, o, train_len, /*hoist=*/true);
  train.Dense("dec.memory", record, o.units, o.units, /*bias=*/false);  // the attention's keys
  WriteDecoder(train, o, train_len, /*step_embedding=*/false);
  WriteTrainingLoss(train, o, train_len);

  const int64_t s = o.decode_length;
  const Lengths decode_len{s, s, /*training=*/false};
  OpWriter eval(&g, &g.eval);
  WriteEncoder(eval, o, decode_len, /*hoist=*/false);
  eval.defaults.instances = o.beam;  // the encoder output is tiled over the beams before the memory layer
  eval.Dense("dec.memory", s, o.units, o.units, false);
  WriteDecoder(eval, o, decode_len, /*step_embedding=*/true);
  eval.defaults.sequential_steps = s;
  WriteProjection(eval, o, 1);
  // Log-softmax, length and coverage penalties and the beam's top-k.
  eval.Elementwise("beam_search", o.vocab, 8);
  return g;
}

}  // namespace podbench::gnmt
