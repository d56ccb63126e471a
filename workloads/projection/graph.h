// A full-size model as the projection layer sees it: an ordered graph of ops
// with per-example shapes and dtypes, and the parameter tensors they use.
//
// A model is a graph and a configuration (ARCHITECTURE.md): a workload builds
// its ModelGraph once (resnet/resnet_graph.h, ssd/ssd_graph.h, ...) and the
// shared projection layer (projection.h) prices it on a slice under a
// parallel layout. Nothing in a graph knows a slice, a core or a cost.
//
// Conventions, for every op:
//   - Shapes are PER EXAMPLE of the model's unit (one image of the model's
//     input size, one packed sequence, one sentence pair, one board
//     position). The per-replica batch multiplies them; the projection layer
//     divides by the cores of a replica under spatial partitioning.
//   - `instances` repeats the op's shape independently per example (512
//     ROIs of one image through the box head, 4 beams of one sentence).
//   - `sequential_steps` repeats it one step after another (the time steps
//     of a decoder that feeds its own output back). The LSTM op carries its
//     own time steps in LstmAttrs and leaves this at 1.
//   - `train` lists the forward ops of one training step in execution order;
//     the backward pass is derived from it by the projection layer (in
//     reverse order, input gradients only where `needs_input_grad`).
//     `eval` lists the forward ops of one evaluation step: the eval program
//     may differ from training (no loss, NMS, a beam-search decode).
//   - MACs count the multiply-accumulates of the matrix units only (conv,
//     matmul, attention, LSTM, ROIAlign's bilinear weights are not MACs), as
//     published counts do (ResNet-50: 4.09 GMAC per 224x224 image).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace podbench::projection {

enum class DType { kBf16, kF32, kInt32 };
const char* DTypeName(DType d);   // "bf16", "fp32", "int32"
double BytesOf(DType d);          // 2, 4, 4

// ---------------------------------------------------------------- op attributes

// 2-D convolution on NHWC. A space-to-depth stem is the convolution after
// the host's space-to-depth (SSD, Mask R-CNN conv0: 150x150x12 input, 4x4
// kernel, stride 1): give its transformed shape and set space_to_depth.
// A transposed convolution (Mask R-CNN's 2x2 stride-2 deconv) sets
// `transposed`: h/w are its input, the output is h*stride x w*stride.
struct ConvAttrs {
  int64_t h = 1, w = 1, c = 1;   // input
  int64_t oc = 1;
  int64_t kh = 1, kw = 1, stride = 1, pad = 0;
  bool bias = false;
  bool space_to_depth = false;
  bool transposed = false;
  int64_t OutH() const;
  int64_t OutW() const;
};

// Dense / matmul: [m, k] x [k, n] per instance. A per-image dense layer has
// m = 1; a projection over a sequence has m = its tokens.
struct MatMulAttrs {
  int64_t m = 1, k = 1, n = 1;
  bool bias = false;
};

// The core of multi-head attention: scores = Q K^T / sqrt(d), softmax,
// out = P V, over `heads` heads of width `head_dim`. The Q/K/V and output
// projections are MatMul ops of their own. `causal`: a decoder's
// self-attention mask. `additive`: Bahdanau attention (v^T tanh(Wq + Uk);
// GNMT, normalized) instead of dot products.
struct AttentionAttrs {
  int64_t heads = 1, tq = 1, tk = 1, head_dim = 1;
  bool causal = false;
  bool additive = false;
};

// One LSTM layer over `steps` time steps, one direction: per step
// [input + hidden] x [4 * hidden] on the MXU and the gate nonlinearities on
// the vector unit. A bidirectional layer is two ops.
struct LstmAttrs {
  int64_t steps = 1, input = 1, hidden = 1;
  // Steps the weight gradient contracts over (kernels::LstmLoopShape); 0: steps.
  int64_t weight_grad_steps = 0;
};

// Embedding lookup of `tokens` ids into a [vocab, dim] table. Its gradient
// is sparse (rows touched only); a shared input/output embedding appears as
// this op and a MatMul that name the same parameter.
struct EmbeddingAttrs {
  int64_t tokens = 1, vocab = 1, dim = 1;
};

// Batch norm (statistics over the batch: distributed BN syncs them within
// the BN group) or layer norm (statistics per row) over rows x channels.
struct NormAttrs {
  enum Kind { kBatch, kLayer } kind = kBatch;
  int64_t rows = 1;      // per example: h*w for BN, tokens for LN
  int64_t channels = 1;
  bool scale = true, center = true;
  bool frozen = false;   // Mask R-CNN: BN in inference mode, no statistics sync
  // Distributed BN sums mean and variance in ONE all-reduce of 2C values
  // (Google's v0.6 SSD concatenates them, distributed_batch_norm.py) rather
  // than two of C (its ResNet: one cross_replica_sum each).
  bool concat_stats = false;
};

// Elementwise work: activations, residual adds, dropout, casts, gates.
// Unfused it moves (inputs + 1) tensors forward and (inputs + 2) backward
// (dy and the saved inputs read, dx written).
struct ElementwiseAttrs {
  int64_t elements = 1;        // per instance
  double ops_per_element = 1;  // fp32 vector ops
  int64_t inputs = 1;          // tensors read (the output is written once)
  // Vector ops per element of the backward pass; < 0: ops_per_element. 0:
  // the gradient passes through unchanged (a residual add fans it out), no
  // backward op.
  double backward_ops_per_element = -1;
};

// Pooling: window `k` at `stride` over h x w x c (global: k = h = w).
struct PoolAttrs {
  enum Kind { kMax, kAvg } kind = kMax;
  int64_t h = 1, w = 1, c = 1, k = 1, stride = 1, pad = 0;
};

// Softmax cross-entropy over rows x classes (logits in fp32), forward and
// backward; SSD's box regression loss rides on it as an elementwise op.
struct SoftmaxXentAttrs {
  int64_t rows = 1, classes = 1;
};

// Box decode and non-maximum suppression: `boxes` candidates in `classes`
// classes, per class top `pre_nms_top_k`, IoU threshold, `max_detections`
// out. Evaluation only, or RPN proposals in training (Mask R-CNN).
struct NmsAttrs {
  int64_t boxes = 1, classes = 1, pre_nms_top_k = 1, max_detections = 1;
  double iou_threshold = 0.5;
};

// ROIAlign: `rois` boxes per example pooled to out x out from a c-channel
// feature map, `samples` bilinear samples per bin per axis.
struct RoiAlignAttrs {
  int64_t rois = 1, out = 7, c = 256, samples = 2;
};

using OpAttrs = std::variant<ConvAttrs, MatMulAttrs, AttentionAttrs, LstmAttrs, EmbeddingAttrs, NormAttrs,
                             ElementwiseAttrs, PoolAttrs, SoftmaxXentAttrs, NmsAttrs, RoiAlignAttrs>;

enum class OpKind {
  kConv2d, kMatMul, kAttention, kLstm, kEmbedding, kNorm, kElementwise, kPool, kSoftmaxXent,
  kBoxDecodeNms, kRoiAlign,
};
const char* OpKindName(OpKind k);  // "conv2d", "matmul", ...

// Where an op runs when a replica spans several cores.
enum class Placement {
  kSplit,       // split over the replica's cores along the layout's dimension
  kPinnedCore0, // runs whole on one core of the replica, Op::pinned_core (the
                // first unless set; Google pinned SSD's mining and loss
                // there); the other cores wait
};

struct Op {
  std::string name;                // unique in its list, e.g. "enc.layer3.ffn.in"
  OpAttrs attrs;
  DType dtype = DType::kBf16;      // activations and MXU operands
  int64_t instances = 1;
  int64_t sequential_steps = 1;
  // Parameter tensors this op reads (names in ModelGraph::params). A shared
  // tensor is named by every op that uses it and counted once.
  std::vector<std::string> params;
  // False for the first op of a model (the input image needs no gradient)
  // and for ops above a frozen prefix.
  bool needs_input_grad = true;
  // XLA fuses elementwise consumers (BN, activation, residual add) into the
  // producing convolution or matmul: vector work only, no HBM round trip and
  // no op overhead of its own.
  bool fused = false;
  Placement placement = Placement::kSplit;
  // For a kPinnedCore0 op: the core of the replica it runs on, taken modulo
  // the replica's cores. 0 (the default) is core 0. Only Mask R-CNN's heads
  // use others: Google ran the box head and its loss on core 2 and the mask
  // head and its loss on core 1 (core_assignment_utils.py), concurrently.
  int64_t pinned_core = 0;
  // Forward work the backward pass does again (a loop whose backward keeps no
  // forward values computes them before their gradients): priced as its
  // forward pass, timed in the step's backward (which overlap.gradients_with_
  // backward hides gradient sums under), not counted in ModelGraph::ForwardMacs.
  bool recomputed = false;

  OpKind kind() const { return static_cast<OpKind>(attrs.index()); }
};

// A parameter tensor: fp32 master weights (the MXU contract: bf16 operands,
// fp32 accumulate, fp32 master weights).
struct Param {
  std::string name;
  std::vector<int64_t> shape;
  bool trainable = true;        // false: frozen (Mask R-CNN conv0 and res2)
  bool sparse_gradient = false; // embedding tables (LazyAdam updates touched rows)
  // Batch/layer-norm scale and shift and biases: LARS leaves them out of
  // its trust ratio, as Google's v0.6 ResNet did.
  bool norm_or_bias = false;
  int64_t elements() const;
};

// What a host does per example of the model's unit: the projection layer
// prices it with the system file's global host rates (host.input_bytes_per_s,
// host.cache_fill_bytes_per_s, host.scoring_ops_per_s), so a model states
// sizes and counts here, never a rate.
struct HostWork {
  // Bytes of the device-ready tensors of one training example the host
  // produces (after decode, augmentation, label encoding and the cast) and
  // infeeds: ResNet-50 224 x 224 x 3 bf16 plus its int32 label. The host
  // input rate is measured in these bytes.
  double infeed_bytes = 0;
  // Hosts that infeed the training examples; 0: every host reads its shard
  // and feeds its own chips. GNMT's v0.6 runner feeds the whole global batch
  // from 2 hosts, each to its first core on alternate steps
  // (../shared/reference/gnmt-v0.6.md): then a step's examples come through
  // one of these hosts and one chip's PCIe, in turn.
  int infeed_hosts = 0;
  // Bytes of one training example as stored (the encoded JPEG) that a host
  // decodes when it fills a cache of decoded examples in its first epoch
  // (StepConfig::cache_decoded_examples): the fill is JPEG decoding, so its
  // rate (host.cache_fill_bytes_per_s) is in these bytes. 0: infeed_bytes.
  double decode_bytes = 0;
  // Bytes one evaluation example's results take on the way back to the host
  // (logits, detections, decoded tokens), outfed over PCIe.
  double outfeed_bytes = 0;
  // Scalar host operations to score one evaluation example (top-1: an argmax
  // over the logits; COCO: matching detections; BLEU: n-gram counts), run in
  // `scoring_processes` host processes at once.
  double score_ops = 0;
  int scoring_processes = 1;
  // Scalar host operations per evaluation example that one process does
  // after the `scoring_processes` have done theirs (Mask R-CNN: 16 workers
  // paste and encode the masks, then one process runs COCOeval over all of
  // them). 0: the scoring is score_ops alone.
  double serial_score_ops = 0;
  // Evaluations the host scores side by side (a pool of processes that each
  // take one evaluation while training goes on): an evaluation's scoring may
  // lag this many next blocks before the run waits for it. 1: each waits for
  // the one before (a main thread that scores).
  int scoring_pool = 1;
};

struct ModelGraph {
  std::string name;          // the v0.6 submission_benchmark value: "resnet", "ssd", ...
  std::string description;   // e.g. "ResNet-50 v1.5, 224x224x3, 1000 classes"
  std::string example_unit;  // e.g. "image 224x224", "packed sequence of 256 tokens"
  HostWork host;             // per example; zero: the host side is not priced
  std::vector<Param> params;
  std::vector<Op> train;     // forward ops of a training step, in order
  std::vector<Op> eval;      // forward ops of an evaluation step, in order

  int64_t TotalParams() const;      // every Param, shared ones once
  int64_t TrainableParams() const;
  // Forward multiply-accumulates per example of the training graph (or the
  // eval graph), instances and steps included, recomputed ops (Op::recomputed)
  // left out.
  double ForwardMacs() const;
  double EvalMacs() const;
  // Index of the parameter named `param`, or -1.
  int FindParam(const std::string& param) const;
};

// Multiply-accumulates of one op for one example (instances and sequential
// steps included): conv, matmul, attention, LSTM; 0 for the others.
double OpMacs(const Op& op);

}  // namespace podbench::projection
