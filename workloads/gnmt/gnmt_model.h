// GNMT (Wu et al. 2016) as Google's MLPerf v0.6 code builds it
// (../shared/reference/gnmt-v0.6.md section 1), at any width and depth,
// computed on one emulated TPU core: its parameters, its training
// forward/backward over a padded batch and its incremental decoder for beam
// search.
//
// Architecture (section 1), kept at every size:
//   - one embedding table shared by the encoder and the decoder, width
//     `hidden`; dropout on the embedded source and target;
//   - encoder: a bidirectional LSTM layer (hidden units per direction, its
//     output the 2 hidden wide concatenation), then encoder_layers - 1
//     unidirectional layers with dropout on each layer's input; the first of
//     them (input 2 hidden) has no residual, the later ones add their input
//     (residual connections from the third layer on); outputs are zero at
//     the padding (each row runs to its own length: the backward direction
//     starts at each row's last token);
//   - decoder: layer 0 is the attention cell, an LSTM whose input is
//     [embedding, attention of the previous step]; its new h is the query of
//     normalized Bahdanau attention (kernels/ops/bahdanau_attention.h) over
//     the encoder outputs (keys: the memory layer, applied once per
//     sequence); layers 1 .. decoder_layers - 1 take [output below,
//     attention] with dropout on that input, and layers from 2 on add the
//     output below (residual); the initial states and attention are zero;
//   - output projection [hidden, vocab], untied from the embedding, no bias;
//     the projection and the logits are fp32 (Google casts up to the fp32
//     output_projection);
//   - loss: label-smoothed softmax cross-entropy (the kernels' form) summed,
//     not averaged, over the target positions, padded to the batch's
//     longest target with end-of-sentence (Google pads with EOS).
//     eos_loss says which positions count: kAsRun, every position, is what
//     Google's _compute_loss computed: its mask `tf.where(target ==
//     self.eos_id, zeros, crossent)` compares a TF 1.x Tensor to an int with
//     Python's identity ==, which is False, so nothing is masked; kMasked
//     drops every position whose target is EOS (the code's evident intent:
//     real end-of-sentence tokens and padding), and then the model is never
//     taught to end a sentence.
//   - LSTM cells (kernels/ops/lstm_cell.h) without a forget bias; weights
//     initialised uniform in [-init, init], attention_g to sqrt(1 / hidden)
//     and attention_b to 0 (section 1).
// Precision kBf16 is the MXU contract for the LSTM gate matmuls and the
// attention's query and memory layers; the gates, attention scores, the
// projection and the loss stay fp32; the parameters are fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "workloads/translation/packing.h"

namespace podbench::gnmt {

enum class EosLoss { kAsRun, kMasked };

struct GnmtConfig {
  int32_t vocab = 0;       // shared vocabulary; id 0 starts the decoder, id 1 is end-of-sentence
  int hidden = 64;         // LSTM units, embedding and attention width (Google: 1024)
  int encoder_layers = 4;  // the bidirectional layer counts as one (Google: 4); REQUIRES: >= 2
  int decoder_layers = 4;  // the attention cell counts as one (Google: 4); REQUIRES: >= 1
  float dropout = 0.2f;    // Google: 0.2; in [0, 1)
  float label_smoothing = 0.1f;
  float init_scale = 0.1f;  // uniform init range (Google's init_weight 0.1)
  EosLoss eos_loss = EosLoss::kAsRun;
  kernels::Precision precision = kernels::Precision::kBf16;

  // InvalidArgument naming the field.
  Status Validate() const;
};

// Offsets in floats into the flat parameter vector.
struct GnmtLayout {
  struct Lstm {
    int64_t w = 0, b = 0;  // w [input + hidden, 4 hidden] (kernels::LstmCellForward's layout), b [4 hidden]
    int64_t input = 0;
  };
  int64_t embedding = 0;  // [vocab, hidden]
  Lstm encoder_fw, encoder_bw;
  std::vector<Lstm> encoder;  // the unidirectional layers (encoder_layers - 1)
  int64_t memory = 0, query = 0;  // [hidden, hidden] each
  int64_t attention_v = 0, attention_g = 0, attention_b = 0;  // [hidden], [1], [hidden]
  std::vector<Lstm> decoder;  // decoder_layers; [0] the attention cell
  int64_t projection = 0;     // [hidden, vocab]
  int64_t total = 0;

  explicit GnmtLayout(const GnmtConfig& c);
};

// Initial weights, deterministic in `seed` (see above).
std::vector<float> InitialParameters(const GnmtConfig& c, uint64_t seed);

struct StepContext {
  uint64_t seed = 0;     // dropout masks are a function of (seed, step, core, site, position)
  int64_t step = 0;
  int core = 0;
  bool training = true;  // false: no dropout
};

// One core's model. Not thread-safe; each emulated core has its own.
class GnmtCore {
 public:
  GnmtCore(const GnmtConfig& config, const GnmtLayout& layout);
  ~GnmtCore();

  // Forward and backward of `rows` (one example per row, padding 0 after
  // each sequence: translation::PadBatch) with weights `w`. The encoder runs
  // to the rows' longest source, the decoder to their longest target.
  // Writes the gradient of the summed loss to `grad` (overwritten, same
  // layout as w). Returns the summed loss and the number of positions in it.
  // InvalidArgument for an empty row or an id outside the vocabulary.
  Result<std::pair<double, int64_t>> TrainStep(const float* w, const translation::PackedRows& rows,
                                               const StepContext& ctx, float* grad);

  // Incremental decoding for beam search over `sources` (ids, end-of-sentence
  // included): encodes them; then DecodeStep predicts one token per row.
  Status StartDecoding(const float* w, const std::vector<std::span<const int32_t>>& sources);
  // One beam-search step (translation::DecodeStep's rows): writes the
  // log-probabilities (rows x vocab) of every row's next token and, when
  // `attention` is not empty, each row's attention probabilities over its
  // sentence's source positions (rows x longest source, zero past the row's
  // own source).
  Status DecodeStep(std::span<const int32_t> parent_rows, std::span<const int32_t> sentences,
                    std::span<const int32_t> tokens, std::span<float> log_probs, std::span<float> attention = {});
  // The longest source of the last StartDecoding.
  int64_t source_length() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace podbench::gnmt
