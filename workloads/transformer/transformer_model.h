// The Transformer (Vaswani et al. 2017) as tensor2tensor builds it for
// translation, at any size, computed on one emulated TPU core: the model's
// parameters, its training forward/backward over packed rows and its
// incremental decoder for beam search.
//
// Architecture (tensor2tensor `transformer`, as Google's v0.6 MLPerf
// submission used it at "big" size):
//   - one embedding table shared by the source, the target and the output
//     softmax (logits = h E^T); embeddings scaled by sqrt(hidden), zero at
//     padding; sinusoidal timing signal over each example's own positions
//     (packed rows restart positions per example);
//   - pre-norm layers: x + Dropout(Sublayer(LayerNorm(x))); encoder layers
//     self-attention + ReLU feed-forward, decoder layers causal
//     self-attention + encoder-decoder attention + feed-forward; a final
//     layer norm on each stack (epsilon 1e-6);
//   - multi-head attention without biases (fused q/k/v projection), scores
//     scaled by (hidden / heads)^-0.5, kept inside each packed example
//     (segment ids) and causal in the decoder's self-attention;
//   - the decoder input is the target shifted right within each example
//     (a zero vector at every example's first position);
//   - dropout (`dropout`) on the embedded inputs and on every sublayer's
//     output before its residual add (tensor2tensor's
//     layer_prepostprocess_dropout); no attention or ReLU dropout;
//   - loss: softmax cross-entropy with label smoothing (the kernels' form:
//     1 - s + s/V on the label, s/V elsewhere) summed over the non-padding
//     target positions.
// Precision kBf16 is the MXU contract for every matmul (dense layers,
// attention's score and value products, the logits): operands rounded to
// bf16, fp32 accumulation; layer norm, softmax and the loss stay fp32, and
// the parameters (master weights) are fp32.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "kernels/conv/conv2d.h"
#include "workloads/translation/packing.h"

namespace podbench::transformer {

struct TransformerConfig {
  int32_t vocab = 0;          // shared source/target vocabulary, id 0 = padding
  int hidden = 64;            // d_model; REQUIRES: even, divisible by heads
  int heads = 4;
  int filter = 256;           // feed-forward inner size
  int encoder_layers = 2;
  int decoder_layers = 2;
  float dropout = 0.1f;       // in [0, 1)
  float label_smoothing = 0.1f;
  kernels::Precision precision = kernels::Precision::kBf16;

  // InvalidArgument naming the field.
  Status Validate() const;
  // Transformer big (Google's v0.6 model): 1024 hidden, 16 heads, 4096
  // filter, 6 + 6 layers, the ~32k (2^15) subword vocabulary.
  static TransformerConfig Big();
};

// Where each tensor lives in the flat parameter vector (offsets in floats;
// matrices are [in, out] row-major).
struct ParameterLayout {
  struct Norm {
    int64_t gamma = 0, beta = 0;
  };
  struct Attention {
    int64_t q = 0;   // self-attention: fused [hidden, 3 hidden] q|k|v; encoder-decoder: [hidden, hidden]
    int64_t kv = 0;  // encoder-decoder only: [hidden, 2 hidden] k|v
    int64_t out = 0; // [hidden, hidden]
  };
  struct FeedForward {
    int64_t w1 = 0, b1 = 0, w2 = 0, b2 = 0;
  };
  struct EncoderLayer {
    Norm norm1, norm2;
    Attention self;
    FeedForward ffn;
  };
  struct DecoderLayer {
    Norm norm1, norm2, norm3;
    Attention self, cross;
    FeedForward ffn;
  };
  int64_t embedding = 0;  // [vocab, hidden]
  std::vector<EncoderLayer> encoder;
  std::vector<DecoderLayer> decoder;
  Norm encoder_norm, decoder_norm;
  int64_t total = 0;

  explicit ParameterLayout(const TransformerConfig& c);
};

// Initial weights, deterministic in `seed`: embedding N(0, hidden^-0.5),
// matrices Glorot uniform, biases and betas 0, gammas 1 (tensor2tensor's
// uniform_unit_scaling-like defaults).
std::vector<float> InitialParameters(const TransformerConfig& c, uint64_t seed);

// Per-step randomness and loss scaling for one core.
struct StepContext {
  uint64_t seed = 0;     // the run's seed
  int64_t step = 0;      // dropout masks are a function of (seed, step, core, position)
  int core = 0;
  double loss_scale = 1; // the loss whose gradient is taken: scale x summed token loss
  bool training = true;  // false: no dropout
};

// One core's model: workspaces for a fixed row shape. Not thread-safe; each
// emulated core has its own.
class TransformerCore {
 public:
  TransformerCore(const TransformerConfig& config, const ParameterLayout& layout);
  ~TransformerCore();

  // Forward and backward of `rows` (rows x length packed examples) with
  // weights `w`: writes the gradient of loss_scale x (summed token loss) to
  // `grad` (overwritten, same layout as w). Returns the summed token loss
  // (label-smoothed cross-entropy) and the number of target tokens.
  Result<std::pair<double, int64_t>> TrainStep(const float* w, const translation::PackedRows& rows,
                                               const StepContext& ctx, float* grad);
  // Incremental decoding for beam search over `sources` (ids, end-of-sentence
  // included): encodes them, then Step() predicts one token per row.
  Status StartDecoding(const float* w, const std::vector<std::span<const int32_t>>& sources);
  // One beam-search step (see translation::DecodeStep): log-probabilities
  // (rows x vocab) of the next token of every row.
  Status DecodeStep(int step, std::span<const int32_t> parent_rows, std::span<const int32_t> sentences,
                    std::span<const int32_t> tokens, std::span<float> log_probs);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace podbench::transformer
