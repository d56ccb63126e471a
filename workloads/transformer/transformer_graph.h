// The full-size Transformer (big) of MLPerf v0.6 as a projection graph (the
// zoo entry of "transformer", registered in transformer.cc).
//
// The network, as Google's v0.6 submission defines it (Tensor2Tensor
// transformer_mlperf_tpu on translate_ende_wmt32k_packed; transformer/models/
// transformer.py, layers/common_attention.py; ../shared/reference/
// google-v0.6-implementation.md section 4):
//   - 6 encoder and 6 decoder layers, d_model 1024, filter 4096, 16 heads;
//     pre-norm layers (layer norm, sublayer, dropout, residual add) and a
//     final layer norm per stack; Q/K/V and output projections without bias,
//     the feed-forward layers with bias; sinusoidal positions (no weights);
//   - one [vocab, 1024] table shared by the source embedding, the target
//     embedding and the softmax (shared_embedding_and_softmax_weights and one
//     symbol modality for both sides): counted once;
//   - training on packed examples: 256 source and 256 target tokens, attention
//     over all 256 positions (segment masks), label-smoothed cross-entropy
//     with fp32 logits;
//   - evaluation: beam-4 decode of one source sentence padded to 97 tokens,
//     97 + 50 steps, incremental with cached keys and values; on the TPU the
//     cache has its full static length, so each step attends over 147 slots.
//
// Vocabulary: 33,708 subword tokens, the size of vocab.ende.32768 of the
// MLPerf v0.6 reference Transformer (model_params vocab_size=33708). Google's
// T2T problem builds its own subword vocabulary to a target of 2^15
// (approx_vocab_size); its exact size is not in the submission.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "workloads/projection/graph.h"

namespace podbench::transformer {

inline constexpr int64_t kTransformerVocab = 33708;

struct TransformerGraphOptions {
  int64_t vocab = kTransformerVocab;
  int64_t layers = 6;  // per stack
  int64_t d_model = 1024;
  int64_t filter = 4096;
  int64_t heads = 16;
  int64_t packed_length = 256;       // tokens per packed source and target
  int64_t decode_input_length = 97;  // source padding in evaluation
  int64_t extra_decode_length = 50;  // decode steps = input length + this
  int64_t beam = 4;
};

// The graph. InvalidArgument naming the option unless every size is >= 1 and
// heads divides d_model.
Result<projection::ModelGraph> BuildTransformerGraph(const TransformerGraphOptions& options = {});


}  // namespace podbench::transformer
