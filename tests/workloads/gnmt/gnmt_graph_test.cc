// The full-size GNMT graph against published and hand-derived figures, the
// beam-search evaluation, and the google-v0.6 preset tables.
//
// Published figure: the MLPerf v0.6 reference GNMT (PyTorch) has 160,671,297
// parameters with its 32,320-token vocabulary, as NVIDIA's v0.6 submission
// prints it ("Number of parameters: 160671297",
// fixtures/logs/v0.6/NVIDIA/results/dgx1_ngc19.05_pytorch/gnmt/result_0.txt).
// Google's TensorFlow model differs in four documented ways, reconciled
// exactly below: its first decoder cell also reads the previous attention (an
// attention_kernel [1024, 4096]); each LSTM has one bias where PyTorch has two
// (9 LSTMs: 2 bidirectional, 3 encoder, 4 decoder); its output projection has
// no bias; its vocabulary is the file and 3 special tokens, not 4 and padding
// to a multiple of 8 (../shared/reference/gnmt-v0.6.md §1: V in [32,316,
// 32,319]; the graph takes 32,317).
// No FLOPs figure is published; the forward pass is derived by hand below and
// checked against the 2N-per-token rule (Kaplan et al. 2020: a forward pass
// costs about one multiply-add per weight a token passes through).
#include "workloads/gnmt/gnmt_graph.h"

#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/testing/shared_dir.h"
#include "workloads/gnmt/gnmt_google_v06.h"
#include "workloads/projection/op_cost.h"

namespace podbench::gnmt {
namespace {

using ::testing::HasSubstr;

projection::ModelGraph Graph(const GnmtGraphOptions& o = {}) {
  auto g = BuildGnmtGraph(o);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : projection::ModelGraph{};
}

const projection::Op* FindOp(const std::vector<projection::Op>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return &op;
  }
  return nullptr;
}

constexpr int64_t kReferenceParams = 160671297;
constexpr int64_t u = 1024, kNvidiaV = 32320, V = 32317;
constexpr int64_t kGoogleParams = kReferenceParams + u * 4 * u - 9 * 4 * u - kNvidiaV - 2 * u * (kNvidiaV - V);

// Google's model by hand: [input + hidden, 4u] kernels and a 4u bias per LSTM.
constexpr int64_t Lstm(int64_t input) { return (input + u) * 4 * u + 4 * u; }
constexpr int64_t kHandParams = V * u                          // shared embedding
                                + 2 * Lstm(u) + Lstm(2 * u) + 2 * Lstm(u)  // encoder
                                + Lstm(2 * u) + 3 * Lstm(2 * u)         // decoder
                                + 2 * u * u + u + 1 + u                 // attention: memory, query, v, g, b
                                + u * V;                                // output projection

TEST(GnmtGraphTest, ParametersMatchTheReferenceReconciledWithGooglesModel) {
  const projection::ModelGraph g = Graph();
  EXPECT_EQ(kGoogleParams, kHandParams);
  EXPECT_EQ(g.TotalParams(), kGoogleParams);
  EXPECT_EQ(g.TotalParams(), 164790273);
  // 98,605,057 + 2048 V (gnmt-v0.6.md §1), 164.79 M anywhere in V's range.
  EXPECT_EQ(g.TotalParams(), 98605057 + 2048 * V);
  EXPECT_EQ(kGnmtVocab, V);
  EXPECT_GE(kGnmtVocab, 32316);
  EXPECT_LE(kGnmtVocab, 32319);
  EXPECT_EQ(g.TrainableParams(), g.TotalParams());
  int declared = 0;
  for (const auto& p : g.params) declared += p.name == "embedding_share";
  EXPECT_EQ(declared, 1);
}

TEST(GnmtGraphTest, ReferenceCountIsTheOneNvidiaLogged) {
  PODBENCH_REQUIRE_SHARED(shared);
  std::ifstream in(shared / "fixtures/logs/v0.6/NVIDIA/results/dgx1_ngc19.05_pytorch/gnmt/result_0.txt");
  ASSERT_TRUE(in) << "the NVIDIA v0.6 GNMT log is missing from ../shared";
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_THAT(text.str(), HasSubstr("Number of parameters: " + std::to_string(kReferenceParams)));
  EXPECT_THAT(text.str(), HasSubstr("Size of vocabulary: " + std::to_string(kNvidiaV)));
}

TEST(GnmtGraphTest, ForwardMacsMatchTheHandCount) {
  const double t = 48;
  const double encoder = t * (2 * (2.0 * u * 4 * u) + 3.0 * u * 4 * u + 2 * (2.0 * u * 4 * u));
  const double decoder = t * 4 * (3.0 * u * 4 * u);
  const double attention = t * u * u /*memory*/ + t * u * u /*query*/ + 2 * t * t * u /*scores, context*/;
  const double projection = t * u * V;
  const projection::ModelGraph g = Graph();
  EXPECT_DOUBLE_EQ(g.ForwardMacs(), encoder + decoder + attention + projection);
  EXPECT_DOUBLE_EQ(g.ForwardMacs(), 6324338688.0);
  // One multiply-add per non-embedding weight and token, per side: within 1%
  // (the rest is the attention's scores and context).
  const double weights_per_pair = t * double(kHandParams - V * u);
  EXPECT_NEAR(g.ForwardMacs(), weights_per_pair, 0.01 * weights_per_pair);
}

TEST(GnmtGraphTest, EvaluationIsABeamSearchDecode) {
  const projection::ModelGraph g = Graph();
  const auto& enc = std::get<projection::LstmAttrs>(FindOp(g.eval, "enc.layer1")->attrs);
  EXPECT_EQ(enc.steps, 160);
  EXPECT_EQ(enc.input, 2048);
  const auto* dec = FindOp(g.eval, "dec.layer0");
  EXPECT_EQ(std::get<projection::LstmAttrs>(dec->attrs).steps, 160);
  EXPECT_EQ(std::get<projection::LstmAttrs>(dec->attrs).input, 2048);
  EXPECT_EQ(dec->instances, 5);
  const auto* att = FindOp(g.eval, "dec.attention");
  EXPECT_EQ(att->sequential_steps, 160);
  EXPECT_EQ(att->instances, 5);
  EXPECT_TRUE(std::get<projection::AttentionAttrs>(att->attrs).additive);
  EXPECT_EQ(std::get<projection::AttentionAttrs>(att->attrs).tk, 160);
  const auto* proj = FindOp(g.eval, "projection");
  EXPECT_EQ(proj->dtype, projection::DType::kF32);
  EXPECT_EQ(proj->sequential_steps, 160);
  const double s = 160, beams = 5;
  const double encoder = s * (2 * (2.0 * u * 4 * u) + 3.0 * u * 4 * u + 2 * (2.0 * u * 4 * u));
  const double per_step = 4 * (3.0 * u * 4 * u) + u * u + 2 * s * u + u * double(V);
  EXPECT_DOUBLE_EQ(g.EvalMacs(), encoder + beams * s * u * u + beams * s * per_step);
}

TEST(GnmtGraphTest, EmbeddingGradientIsSparseAndTheProjectionIsFp32) {
  const projection::ModelGraph g = Graph();
  const auto& emb = g.params[size_t(g.FindParam("embedding_share"))];
  EXPECT_TRUE(emb.sparse_gradient);
  EXPECT_FALSE(g.params[size_t(g.FindParam("output_projection"))].sparse_gradient);
  EXPECT_EQ(FindOp(g.train, "projection")->dtype, projection::DType::kF32);
  // Training applies the input kernel to every embedded target before the
  // loop; the loop reads the attention and recurrent kernels and the bias.
  EXPECT_EQ(FindOp(g.train, "dec.layer0.input")->params, std::vector<std::string>{"dec.layer0/input_kernel"});
  EXPECT_EQ(FindOp(g.train, "dec.layer0")->params.size(), 3u);
  EXPECT_EQ(std::get<projection::LstmAttrs>(FindOp(g.train, "dec.layer0")->attrs).input, 1024);
  EXPECT_EQ(std::get<projection::LstmAttrs>(FindOp(g.train, "enc.layer1")->attrs).input, 0);
}

// Rows an example of a per-position matmul covers: its positions a chunk
// times its chunks (one "chunk" of every padded position on the direct path).
int64_t RowsOf(const projection::ModelGraph& g, const std::string& op) {
  const projection::Op* o = FindOp(g.train, op);
  EXPECT_NE(o, nullptr) << op;
  return o == nullptr ? 0 : std::get<projection::MatMulAttrs>(o->attrs).m * o->sequential_steps;
}

// Google's training computes the projection and the loss one of two ways,
// by the per-replica batch B against the padded records (G/model.py 797-826).
TEST(GnmtGraphTest, TheLossPathFollowsGooglesRuleOnTheReplicaBatch) {
  GnmtGraphOptions o;
  o.train_length = 30;  // a bucket whose longest target is 30
  o.record_length = 48;
  // B x 48 < 1024 (tpu-v3-512's 16 a core): every padded position, once.
  o.replica_batch = 16;
  auto direct = BuildGnmtGraph(o);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(RowsOf(*direct, "projection"), 48);
  EXPECT_EQ(FindOp(direct->train, "projection")->sequential_steps, 1);
  EXPECT_EQ(std::get<projection::SoftmaxXentAttrs>(FindOp(direct->train, "loss")->attrs).rows, 48);
  EXPECT_EQ(FindOp(direct->train, "loss.recompute.projection"), nullptr);
  // B = 32 (tpu-v3-256): chunks of 512 rows, 16 positions each, each chunk an
  // op; the chunks up to position 30 are 2; computed again, forward only, in
  // Recurrent's backward.
  o.replica_batch = 32;
  auto chunked = BuildGnmtGraph(o);
  ASSERT_TRUE(chunked.ok()) << chunked.status().ToString();
  const projection::Op* proj = FindOp(chunked->train, "projection");
  EXPECT_EQ(std::get<projection::MatMulAttrs>(proj->attrs).m, 16);
  EXPECT_EQ(proj->sequential_steps, 2);
  EXPECT_TRUE(proj->needs_input_grad);
  const projection::Op* loss = FindOp(chunked->train, "loss");
  EXPECT_EQ(std::get<projection::SoftmaxXentAttrs>(loss->attrs).rows, 16);
  EXPECT_EQ(loss->sequential_steps, 2);
  const projection::Op* again = FindOp(chunked->train, "loss.recompute.projection");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(RowsOf(*chunked, "loss.recompute.projection"), 32);
  EXPECT_TRUE(again->params.empty());
  EXPECT_FALSE(again->needs_input_grad);
  EXPECT_TRUE(again->recomputed);
  EXPECT_FALSE(FindOp(chunked->train, "loss.recompute.softmax")->needs_input_grad);
  // The same parameters either way: the recomputation declares none.
  EXPECT_EQ(chunked->TotalParams(), direct->TotalParams());
  // B = 128 (tpu-v3-32): 4 positions a chunk, 8 chunks to position 30.
  o.replica_batch = 128;
  EXPECT_EQ(RowsOf(*BuildGnmtGraph(o), "projection"), 32);
  o.train_length = 29;
  EXPECT_EQ(RowsOf(*BuildGnmtGraph(o), "projection"), 32);
  o.replica_batch = 64;  // 8 positions a chunk: 4 chunks
  EXPECT_EQ(RowsOf(*BuildGnmtGraph(o), "projection"), 32);
  o.replica_batch = -1;
  EXPECT_THAT(BuildGnmtGraph(o).status().message(), HasSubstr("replica_batch -1"));
}

// Each LSTM layer's input projection follows the same rule, with
// input_projection's extra test that B x record be a multiple of 512
// (G/model.py 153-207); the loops' weight gradients contract over the
// state buffer's record - 1 steps (build_rnn, 318-333).
TEST(GnmtGraphTest, InputProjectionsAndLoopWeightGradientsFollowGooglesCode) {
  GnmtGraphOptions o;
  o.train_length = 19;  // bucket 1's longest pair
  o.record_length = 48;
  o.replica_batch = 8;  // tpu-v3-1024: 384 rows, the direct path over all 48 positions
  auto direct = BuildGnmtGraph(o);
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  for (const char* op : {"enc.layer0.fw.input", "enc.layer0.bw.input", "enc.layer1.input", "dec.layer0.input",
                         "dec.layer3.input"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(RowsOf(*direct, op), 48);
    EXPECT_EQ(FindOp(direct->train, op)->sequential_steps, 1);
  }
  o.replica_batch = 32;  // tpu-v3-256: 1536 rows, chunks of 16 positions, 2 to position 19
  auto chunked = BuildGnmtGraph(o);
  ASSERT_TRUE(chunked.ok()) << chunked.status().ToString();
  const projection::Op* in = FindOp(chunked->train, "dec.layer2.input");
  EXPECT_EQ(std::get<projection::MatMulAttrs>(in->attrs).m, 16);
  EXPECT_EQ(std::get<projection::MatMulAttrs>(in->attrs).k, 2048);
  EXPECT_EQ(in->sequential_steps, 2);
  EXPECT_EQ(in->params, std::vector<std::string>{"dec.layer2/input_kernel"});
  // Priced on a core of 32 pairs: each chunk is a 512-row matmul, forward
  // and backward (input and weight gradients).
  kernels::CoreSpec core;
  core.op_overhead_s = 1e-5;
  const projection::OpPasses priced = projection::PriceOp(*in, 32, true, core, true);
  const double chunk = 2.0 * 512 * 2048 * 4096;
  EXPECT_DOUBLE_EQ(priced.forward.padded_flops, 2 * chunk);
  EXPECT_DOUBLE_EQ(priced.backward.padded_flops, 2 * 2 * chunk);
  EXPECT_DOUBLE_EQ(priced.forward.overhead_s, 2 * core.op_overhead_s);  // an op a chunk
  o.replica_batch = 128;  // tpu-v3-32: 4 positions a chunk, 5 to position 19
  EXPECT_EQ(RowsOf(*BuildGnmtGraph(o), "enc.layer2.input"), 20);
  o.replica_batch = 24;  // 1152 rows, not a multiple of 512: the direct path (the loss still chunks)
  auto uneven = BuildGnmtGraph(o);
  ASSERT_TRUE(uneven.ok()) << uneven.status().ToString();
  EXPECT_EQ(RowsOf(*uneven, "enc.layer2.input"), 48);
  EXPECT_EQ(FindOp(uneven->train, "projection")->sequential_steps, 1);  // 21 positions a chunk
  EXPECT_EQ(std::get<projection::MatMulAttrs>(FindOp(uneven->train, "projection")->attrs).m, 21);

  // The loops run to the bucket's longest pair; their weight gradients over
  // 47 steps of the buffer; evaluation has no backward and no such count.
  for (const char* op : {"enc.layer0.bw", "enc.layer3", "dec.layer0", "dec.layer1"}) {
    SCOPED_TRACE(op);
    const auto& l = std::get<projection::LstmAttrs>(FindOp(chunked->train, op)->attrs);
    EXPECT_EQ(l.steps, 19);
    EXPECT_EQ(l.weight_grad_steps, 47);
    EXPECT_EQ(std::get<projection::LstmAttrs>(FindOp(chunked->eval, op)->attrs).weight_grad_steps, 0);
  }
}

// Training writes the zeros its loops start from over the 48 padded
// positions (build_rnn's acc_state, acc_gate and backward dinput; the first
// decoder layer's attention state and its keys' and values' gradient sums;
// a chunked input projection's output and input gradient).
TEST(GnmtGraphTest, TheLoopsBuffersAreZeroedOverThePaddedRecords) {
  auto zeros_of = [](const projection::ModelGraph& g, const std::string& layer) {
    const projection::Op* op = FindOp(g.train, layer + ".zeros");
    EXPECT_NE(op, nullptr) << layer;
    if (op == nullptr) return int64_t{0};
    EXPECT_FALSE(op->needs_input_grad);
    const auto& e = std::get<projection::ElementwiseAttrs>(op->attrs);
    EXPECT_EQ(e.inputs, 0);  // written, nothing read
    EXPECT_EQ(e.ops_per_element, 0);
    return e.elements;
  };
  GnmtGraphOptions o;
  o.train_length = 19;
  o.record_length = 48;
  o.replica_batch = 8;  // the direct input projections: no buffers of their own
  const projection::ModelGraph direct = Graph(o);
  EXPECT_EQ(zeros_of(direct, "enc.layer2"), 48 * (2 + 4 + 4) * u);
  EXPECT_EQ(zeros_of(direct, "dec.layer0"), 48 * (3 + 4 + 4 + 2) * u);
  o.replica_batch = 32;  // chunked: + the projection's output (4u) and input gradient
  const projection::ModelGraph chunked = Graph(o);
  EXPECT_EQ(zeros_of(chunked, "enc.layer2"), 48 * (10 + 4 + 1) * u);
  EXPECT_EQ(zeros_of(chunked, "enc.layer1"), 48 * (10 + 4 + 2) * u);
  EXPECT_EQ(zeros_of(chunked, "dec.layer0"), 48 * (13 + 4 + 1) * u);
  // The ops a loop layer writes, and none in evaluation.
  int layers = 0;
  for (const projection::Op& op : chunked.train) layers += op.name.ends_with(".zeros") ? 1 : 0;
  EXPECT_EQ(layers, 9);
  for (const projection::Op& op : chunked.eval) EXPECT_FALSE(op.name.ends_with(".zeros")) << op.name;
}

// Outside the loops Google's training runs over every padded position: the
// lookups, the attention's keys and the scores over all 48 source
// positions at each of the bucket's decoder steps; the backward computes
// the query and the attention again (attention_cell_grad).
TEST(GnmtGraphTest, TheAttentionReadsThePaddedSourceAndIsComputedAgainInTheBackward) {
  GnmtGraphOptions o;
  o.train_length = 19;
  o.record_length = 48;
  const projection::ModelGraph g = Graph(o);
  EXPECT_EQ(std::get<projection::EmbeddingAttrs>(FindOp(g.train, "enc.embed")->attrs).tokens, 48);
  EXPECT_EQ(std::get<projection::EmbeddingAttrs>(FindOp(g.train, "dec.embed")->attrs).tokens, 48);
  EXPECT_EQ(RowsOf(g, "dec.memory"), 48);
  const projection::Op* att = FindOp(g.train, "dec.attention");
  EXPECT_EQ(std::get<projection::AttentionAttrs>(att->attrs).tk, 48);
  EXPECT_EQ(att->sequential_steps, 19);
  const projection::Op* query_again = FindOp(g.train, "dec.attention.recompute.query");
  const projection::Op* att_again = FindOp(g.train, "dec.attention.recompute");
  ASSERT_NE(query_again, nullptr);
  ASSERT_NE(att_again, nullptr);
  for (const projection::Op* again : {query_again, att_again}) {
    EXPECT_TRUE(again->recomputed);
    EXPECT_FALSE(again->needs_input_grad);
    EXPECT_TRUE(again->params.empty());
    EXPECT_EQ(again->sequential_steps, 19);
  }
  EXPECT_TRUE(att_again->fused);
  EXPECT_FALSE(query_again->fused);
  EXPECT_EQ(FindOp(g.eval, "dec.attention.recompute"), nullptr);
  // Recomputed work is priced but is not the model's forward pass.
  double recomputed = 0;
  for (const projection::Op& op : g.train) recomputed += op.recomputed ? 1 : 0;
  EXPECT_EQ(recomputed, 2);
  projection::ModelGraph without = g;
  std::erase_if(without.train, [](const projection::Op& op) { return op.recomputed; });
  EXPECT_DOUBLE_EQ(g.ForwardMacs(), without.ForwardMacs());
}

TEST(GnmtGraphTest, RefusesEmptySizes) {
  GnmtGraphOptions o;
  o.beam = 0;
  EXPECT_THAT(BuildGnmtGraph(o).status().message(), HasSubstr("beam 0"));
}

TEST(GnmtGoogleV06Test, TablesAreConsistent) {
  ASSERT_EQ(GnmtGoogleV06Slices().size(), 5u);
  for (const auto& s : GnmtGoogleV06Slices()) {
    SCOPED_TRACE(std::string(s.slice));
    EXPECT_EQ(s.per_core_batch * s.cores, s.global_batch);
    EXPECT_EQ(s.steps_per_epoch, kGnmtTrainPairsPerEpoch / s.global_batch);
    EXPECT_EQ(s.eval_steps, (kGnmtEvalSentences + s.infer_batch - 1) / s.infer_batch);
    EXPECT_EQ(s.infer_batch % s.cores, 0);
  }
}


}  // namespace
}  // namespace podbench::gnmt
