// `podbench bench`: Google Benchmark over every variant of the kernel
// manifests and the dispatched kernel at workload shapes, with oneDNN and
// OpenBLAS at the same shapes in the same process; then tables of ratios to
// them, of the targets, and of the dispatch decisions.
//
// Names: <op>/<shape>/<impl>/threads:<t>. impl: "podbench:<variant>" for a
// manifest variant, "podbench:dispatched" for what workloads get (labelled
// with the winner; bf16 convolutions run on bf16 activations and a bf16
// filter, Values::kBf16, as the functional ResNet's are, and
// "podbench:dispatched_f32_inputs" on fp32 ones that the pass rounds), "onednn:matmul" / "onednn:conv" (oneDNN on operands
// already in its types and layouts, labelled with its implementation) and
// "openblas:sgemm". Each row's %peak divides by the measured peak of the
// unit that row runs on (kernels/bench/peak.h).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/text.h"
#include "kernels/bench/peak.h"
#include "kernels/bench/peers.h"
#include "kernels/bench_hook.h"
#include "kernels/bf16.h"
#include "kernels/conv/conv2d.h"
#include "kernels/conv/conv_variants.h"
#include "kernels/cpu_features.h"
#include "kernels/dispatch/dispatch.h"
#include "kernels/gemm/gemm.h"
#include "kernels/onednn/onednn.h"
#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/layer_norm.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/softmax_xent.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels::bench {
namespace {

using std::int64_t;

constexpr Isa kIsas[] = {Isa::kAvx2Fma, Isa::kAvx512f, Isa::kAvx512Bf16, Isa::kAmxBf16};

struct Case {
  std::string name;
  std::function<void(benchmark::State&)> body;  // runs the timed loop
};

// Measured peaks, [isa][threads].
std::map<Isa, std::vector<double>> g_peak;

double Peak(Isa isa, int threads) {
  auto it = g_peak.find(isa);
  if (it == g_peak.end() || std::size_t(threads) >= it->second.size()) return 0;
  return it->second[std::size_t(threads)];
}

// The best FMA unit: what OpenBLAS's sgemm runs on (assumed: it reports nothing).
Isa BestFmaIsa() { return CpuSupports(Isa::kAvx512f) ? Isa::kAvx512f : Isa::kAvx2Fma; }

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

// Times op() (after one untimed call: dispatch, packing buffers, JIT) and
// sets GFLOP/s, cpuGFLOP/s (1 thread: all libraries then run on this thread,
// so its CPU time excludes what a busy machine takes away) and %peak of `isa`
// (1 thread: of cpuGFLOP/s, like the peak itself; more: of GFLOP/s).
void Measure(benchmark::State& state, double flops, int threads, Isa isa, const std::function<void()>& op) {
  op();
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ThreadCpuSeconds();
  for (auto _ : state) op();
  const double cpu_secs = ThreadCpuSeconds() - cpu0;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double gflops = flops * double(state.iterations()) / 1e9 / std::max(secs, 1e-9);
  const double cpu_gflops = flops * double(state.iterations()) / 1e9 / std::max(cpu_secs, 1e-9);
  state.counters["GFLOP/s"] = gflops;
  if (threads == 1) state.counters["cpuGFLOP/s"] = cpu_gflops;
  const double peak = Peak(isa, threads);
  if (peak > 0) state.counters["%peak"] = 100 * (threads == 1 ? cpu_gflops : gflops) / peak;
}

// The counters of a paired measurement (MeasurePaired): its median ratio
// and quartiles, for bf16 against fp32 and for podbench against oneDNN.
struct PairedCounters {
  const char *median, *low, *high;
};
constexpr PairedCounters kVsF32 = {"bf16/f32", "bf16/f32 q1", "bf16/f32 q3"};
constexpr PairedCounters kVsOnednn = {"/oneDNN", "/oneDNN q1", "/oneDNN q3"};

// Two calls measured as pairs: every iteration times one call of each, back
// to back, the order swapped from one iteration to the next (with more than
// one thread each timed call follows an untimed one of its own, as dispatch
// measures: the other side's threads may still hold the cores). Sets
// names.median to the median over the iterations of t_peer / t_ours (> 1:
// ours faster), names.low / names.high to their quartiles. A shared
// machine's drift then falls on both calls of a pair alike, where the ratio
// of two separately measured rows carries it twice.
void MeasurePaired(benchmark::State& state, int threads, const std::function<void()>& peer,
                   const std::function<void()>& ours, const PairedCounters& names) {
  peer();
  ours();
  auto timed = [threads](const std::function<void()>& op) {
    if (threads > 1) op();
    const auto t0 = std::chrono::steady_clock::now();
    op();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> ratios;
  bool peer_first = true;
  for (auto _ : state) {
    double tp = 0, to = 0;
    if (peer_first) {
      tp = timed(peer);
      to = timed(ours);
    } else {
      to = timed(ours);
      tp = timed(peer);
    }
    peer_first = !peer_first;
    ratios.push_back(tp / std::max(to, 1e-12));
  }
  if (ratios.empty()) return;
  std::sort(ratios.begin(), ratios.end());
  auto at = [&](double q) { return ratios[std::size_t(q * double(ratios.size() - 1) + 0.5)]; };
  state.counters[names.median] = at(0.5);
  state.counters[names.low] = at(0.25);
  state.counters[names.high] = at(0.75);
}

template <typename T>
std::vector<T> Filled(int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[std::size_t(i)] = T(float(int(i % 23) - 11) * 0.01f);
  return v;
}

// The start of the error message of a benchmark that cannot run here (Google
// Benchmark 1.7 has no skip without an error); the text table shows such rows
// as skipped, with the reason, not as errors.
constexpr std::string_view kSkipped = "skipped: ";

void Skip(benchmark::State& state, const std::string& why) {
  state.SkipWithError((std::string(kSkipped) + why).c_str());
}

// Why code compiled for `isa` cannot run in this process.
std::string NeedsIsa(Isa isa) {
  if (DetectedCpuFeatures().capped) {
    return fmt::format("needs {} (PODBENCH_CPU_ISA caps this run at {})", IsaName(isa), IsaName(MaxSupportedIsa()));
  }
  return fmt::format("needs {}, which this CPU lacks", IsaName(isa));
}

// `ours` paired against oneDNN's bf16 primitive, or its fp32 one where it has
// none (the label says which): prepare(bf16, &why) builds the primitive.
void MeasurePairedAgainstOnednn(
    benchmark::State& state, int threads,
    const std::function<std::unique_ptr<onednn::Prepared>(bool bf16, std::string* why)>& prepare,
    const std::function<void()>& ours) {
  std::string why;
  bool bf16_peer = true;
  auto prim = prepare(true, &why);
  if (!prim) {
    bf16_peer = false;
    prim = prepare(false, &why);
  }
  if (!prim) return Skip(state, why);
  state.SetLabel(prim->impl().name + (bf16_peer ? "" : " (f32)"));
  MeasurePaired(state, threads, [&] { prim->Run(); }, ours, kVsOnednn);
}

// A GEMM problem with its own operands.
struct GemmOperands {
  std::vector<float> af, bf, c;
  std::vector<Bf16> ab, bb;
  GemmProblem p;
  GemmOperands(int64_t m, int64_t n, int64_t k, bool f32) : c(std::size_t(m * n)) {
    p.m = m;
    p.n = n;
    p.k = k;
    p.rsa = k;
    p.rsb = n;
    p.c = c.data();
    p.ldc = n;
    if (f32) {
      af = Filled<float>(m * k);
      bf = Filled<float>(k * n);
      p.a = af.data();
      p.b = bf.data();
    } else {
      ab = Filled<Bf16>(m * k);
      bb = Filled<Bf16>(k * n);
      p.a = ab.data();
      p.b = bb.data();
    }
  }
};

void AddGemmCases(std::vector<Case>& cases, const std::vector<int>& thread_counts) {
  struct Shape { int64_t m, n, k; };
  // Square sizes of the targets, then workload shapes: ResNet-50 fc (batch 256),
  // transformer projections (4096 tokens x 1024), GNMT LSTM gates (batch 128).
  const Shape shapes[] = {{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048},
                          {256, 1000, 2048}, {4096, 1024, 1024}, {128, 4096, 2048}};
  for (const Shape& s : shapes) {
    const std::string shape = fmt::format("m{}n{}k{}", s.m, s.n, s.k);
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    const bool small = s.m * s.n * s.k <= 512LL * 512 * 512;
    for (int t : thread_counts) {
      if (s.m == s.n && s.n == s.k) {  // the target shapes: bf16 against fp32, paired
        cases.push_back({fmt::format("gemm_bf16/{}/paired:dispatched_vs_f32/threads:{}", shape, t),
                         [s, t](benchmark::State& state) {
                           GemmOperands f(s.m, s.n, s.k, true), b(s.m, s.n, s.k, false);
                           MeasurePaired(
                               state, t, [&] { RunGemm(GemmDtype::kF32, f.p, t); },
                               [&] { RunGemm(GemmDtype::kBf16, b.p, t); }, kVsF32);
                         }});
        // ...and dispatched bf16 against oneDNN's bf16 matmul (its fp32 one
        // on fp32 operands where it has no bf16), paired.
        cases.push_back({fmt::format("gemm_bf16/{}/paired:dispatched_vs_onednn/threads:{}", shape, t),
                         [s, t](benchmark::State& state) {
                           GemmOperands b(s.m, s.n, s.k, false);
                           MeasurePairedAgainstOnednn(
                               state, t,
                               [&](bool bf16_peer, std::string* why) {
                                 return onednn::PrepareGemm(s.m, s.n, s.k, bf16_peer ? GemmDtype::kBf16 : GemmDtype::kF32,
                                                            t, why);
                               },
                               [&] { RunGemm(GemmDtype::kBf16, b.p, t); });
                         }});
      }
      for (GemmDtype d : {GemmDtype::kF32, GemmDtype::kBf16}) {
        const bool f32 = d == GemmDtype::kF32;
        const std::string op = f32 ? "gemm_f32" : "gemm_bf16";
        for (const GemmVariant& v : GemmVariants()) {
          if (v.dtype != d || (v.reference() && !small)) continue;  // the references are too slow for the rest
          cases.push_back({fmt::format("{}/{}/podbench:{}/threads:{}", op, shape, v.name, t),
                           [s, t, flops, &v, f32](benchmark::State& state) {
                             if (!CpuSupports(v.isa)) return Skip(state, NeedsIsa(v.isa));
                             GemmOperands o(s.m, s.n, s.k, f32);
                             if (!v.Runs(o.p, t)) {
                               return Skip(state, fmt::format("{} has no implementation of this problem", v.name));
                             }
                             const Isa isa = v.RunsOn(o.p, t);
                             state.SetLabel(IsaName(isa));
                             Measure(state, flops, t, isa, [&] { v.fn(o.p, t); });
                           }});
        }
        cases.push_back({fmt::format("{}/{}/podbench:dispatched/threads:{}", op, shape, t),
                         [s, t, flops, d, f32](benchmark::State& state) {
                           GemmOperands o(s.m, s.n, s.k, f32);
                           const GemmVariant& v = DispatchedGemm(d, o.p, t);
                           const Isa isa = v.RunsOn(o.p, t);
                           state.SetLabel(fmt::format("{} ({})", v.name, IsaName(isa)));
                           Measure(state, flops, t, isa, [&] { RunGemm(d, o.p, t); });
                         }});
        cases.push_back({fmt::format("{}/{}/onednn:matmul/threads:{}", op, shape, t),
                         [s, t, flops, d](benchmark::State& state) {
                           std::string why;
                           auto prim = onednn::PrepareGemm(s.m, s.n, s.k, d, t, &why);
                           if (!prim) {
                             Skip(state, why);
                             return;
                           }
                           state.SetLabel(prim->impl().name);
                           Measure(state, flops, t, prim->impl().isa, [&] { prim->Run(); });
                         }});
      }
      cases.push_back({fmt::format("gemm_f32/{}/openblas:sgemm/threads:{}", shape, t),
                       [s, t, flops](benchmark::State& state) {
                         if (!OpenBlasAvailable()) {
                           Skip(state, "OpenBLAS could not be loaded");
                           return;
                         }
                         auto a = Filled<float>(s.m * s.k), b = Filled<float>(s.k * s.n);
                         std::vector<float> c(std::size_t(s.m * s.n));
                         SetOpenBlasThreads(t);
                         state.SetLabel(fmt::format("{} (assumed)", IsaName(BestFmaIsa())));
                         Measure(state, flops, t, BestFmaIsa(),
                                 [&] { OpenBlasSgemm(s.m, s.n, s.k, a.data(), b.data(), c.data()); });
                       }});
    }
  }
}

// ResNet-50 convolutions (batch 4 per emulated core keeps a run short): the
// 3x3 of each stage, a strided 3x3, the stem 7x7/2 and a 1x1.
struct ConvShapeCase {
  const char* what;
  int64_t n, h, w, c, oc, kh, kw, stride, pad;
  bool backward;  // also benchmark the backward passes (dispatched and oneDNN)
};
constexpr ConvShapeCase kConvShapes[] = {
    {"res2_3x3", 4, 56, 56, 64, 64, 3, 3, 1, 1, true},      {"res3_3x3", 4, 28, 28, 128, 128, 3, 3, 1, 1, true},
    {"res4_3x3", 4, 14, 14, 256, 256, 3, 3, 1, 1, true},    {"res5_3x3", 4, 7, 7, 512, 512, 3, 3, 1, 1, true},
    {"res3_3x3s2", 4, 56, 56, 128, 128, 3, 3, 2, 1, false}, {"stem_7x7s2", 4, 224, 224, 3, 64, 7, 7, 2, 3, false},
    {"res2_1x1", 4, 56, 56, 64, 256, 1, 1, 1, 0, false},
};

Conv2dShape ToShape(const ConvShapeCase& s) {
  Conv2dShape cs;
  cs.n = s.n;
  cs.h = s.h;
  cs.w = s.w;
  cs.c = s.c;
  cs.oc = s.oc;
  cs.kh = s.kh;
  cs.kw = s.kw;
  cs.stride = s.stride;
  cs.pad = s.pad;
  return cs;
}

// A pass's operands. bf16_operands: the activation operands and the filter
// hold bf16 values and say so (Values::kBf16), as the bf16 activations and
// the per-step bf16 weights of the functional ResNet do; else any fp32
// values, which a bf16 pass rounds.
struct ConvOperands {
  std::vector<float> in0, in1, out;
  ConvArgs args;
  ConvOperands(ConvPass pass, const Conv2dShape& s, bool bf16_operands)
      : in0(Filled<float>(ConvIn0Elems(pass, s))), in1(Filled<float>(ConvIn1Elems(pass, s))),
        out(std::size_t(ConvOutElems(pass, s))) {
    const Values v = bf16_operands ? Values::kBf16 : Values::kF32;
    args = {in0.data(), in1.data(), out.data(), v, v};
    if (!bf16_operands) return;
    RoundToBf16(in0.data(), in0.data(), long(in0.size()));
    RoundToBf16(in1.data(), in1.data(), long(in1.size()));
  }
};

void AddConvCases(std::vector<Case>& cases, const std::vector<int>& thread_counts) {
  for (const ConvShapeCase& sc : kConvShapes) {
    const Conv2dShape cs = ToShape(sc);
    const double flops = Conv2dFlops(cs);
    const std::string shape = fmt::format("{}_n{}h{}w{}c{}oc{}", sc.what, sc.n, sc.h, sc.w, sc.c, sc.oc);
    for (int t : thread_counts) {
      for (ConvPass pass : {ConvPass::kForward, ConvPass::kBackwardData, ConvPass::kBackwardFilter}) {
        if (pass != ConvPass::kForward && !sc.backward) continue;
        for (Precision prec : {Precision::kF32, Precision::kBf16}) {
          const bool bf16 = prec == Precision::kBf16;  // bf16 rows: on bf16 operands, as the workloads' are
          const std::string op = fmt::format("conv_{}_{}", ConvPassName(pass), bf16 ? "bf16" : "f32");
          for (const ConvVariant& v : ConvVariants(prec)) {
            if (v.isa == Isa::kScalar) continue;  // the reference lowering is far too slow here
            cases.push_back({fmt::format("{}/{}/podbench:{}/threads:{}", op, shape, v.name, t),
                             [cs, t, flops, &v, pass, bf16](benchmark::State& state) {
                               if (!CpuSupports(v.isa)) return Skip(state, NeedsIsa(v.isa));
                               if (!v.supports(v, pass, cs, t)) {
                                 return Skip(state, fmt::format("{} does not support this pass and shape", v.name));
                               }
                               ConvOperands o(pass, cs, bf16);
                               const Isa isa = v.runs_on(v, pass, cs, t);
                               state.SetLabel(IsaName(isa));
                               Measure(state, flops, t, isa, [&] { v.run(v, pass, cs, o.args, t); });
                             }});
          }
          // The dispatched pass; for bf16 also on activations it must round
          // (dispatched_f32_inputs: what a caller without bf16 activations pays).
          for (bool bf16_act : {true, false}) {
            if (!bf16 && bf16_act) continue;
            cases.push_back({fmt::format("{}/{}/podbench:dispatched{}/threads:{}", op, shape,
                                         bf16 && !bf16_act ? "_f32_inputs" : "", t),
                             [cs, t, flops, pass, prec, bf16_act](benchmark::State& state) {
                               ConvOperands o(pass, cs, bf16_act);
                               const ConvVariant& v = DispatchedConv(pass, cs, o.args, prec, t);
                               const Isa isa = v.runs_on(v, pass, cs, t);
                               state.SetLabel(fmt::format("{} ({})", v.name, IsaName(isa)));
                               Measure(state, flops, t, isa, [&] { RunDispatchedConv(pass, cs, o.args, prec, t); });
                             }});
          }
          // The target shapes: dispatched bf16 (on bf16 activations, and on
          // fp32 ones it rounds) against dispatched fp32, paired.
          for (bool bf16_act : {true, false}) {
            if (!bf16 || !sc.backward || sc.kh != 3) continue;
            cases.push_back({fmt::format("{}/{}/paired:{}_vs_f32/threads:{}", op, shape,
                                         bf16_act ? "dispatched" : "dispatched_f32_inputs", t),
                             [cs, t, pass, bf16_act](benchmark::State& state) {
                               ConvOperands f(pass, cs, false), b(pass, cs, bf16_act);
                               MeasurePaired(
                                   state, t, [&] { RunDispatchedConv(pass, cs, f.args, Precision::kF32, t); },
                                   [&] { RunDispatchedConv(pass, cs, b.args, Precision::kBf16, t); }, kVsF32);
                             }});
          }
          // ...and dispatched bf16 (on bf16 activations) against oneDNN's
          // bf16 primitive on podbench's tensors (its fp32 one where it has
          // no bf16), paired.
          if (bf16 && sc.backward && sc.kh == 3) {
            cases.push_back({fmt::format("{}/{}/paired:dispatched_vs_onednn/threads:{}", op, shape, t),
                             [cs, t, pass](benchmark::State& state) {
                               ConvOperands b(pass, cs, true);
                               MeasurePairedAgainstOnednn(
                                   state, t,
                                   [&](bool bf16_peer, std::string* why) {
                                     return onednn::PrepareConv(pass, cs, bf16_peer ? Precision::kBf16 : Precision::kF32,
                                                                t, true, why);
                                   },
                                   [&] { RunDispatchedConv(pass, cs, b.args, Precision::kBf16, t); });
                             }});
          }
          // oneDNN on podbench's interface (fp32 NHWC / HWIO tensors, its own
          // reorders in every run), and on operands prepared once in its types and layouts.
          for (bool from_f32 : {true, false}) {
            cases.push_back({fmt::format("{}/{}/onednn:{}/threads:{}", op, shape, from_f32 ? "conv" : "conv_prepacked", t),
                             [cs, t, flops, pass, prec, from_f32](benchmark::State& state) {
                               std::string why;
                               auto prim = onednn::PrepareConv(pass, cs, prec, t, from_f32, &why);
                               if (!prim) {
                                 Skip(state, why);
                                 return;
                               }
                               state.SetLabel(prim->impl().name);
                               Measure(state, flops, t, prim->impl().isa, [&] { prim->Run(); });
                             }});
          }
        }
      }
    }
  }
}

// Memory-bound kernels, reported in GB/s of their compulsory traffic (fp32). No peers.
void AddOpCases(std::vector<Case>& cases) {
  auto bytes_case = [&](std::string name, double bytes, std::function<void()> op) {
    cases.push_back({std::move(name), [bytes, op](benchmark::State& state) {
                       op();
                       const auto t0 = std::chrono::steady_clock::now();
                       for (auto _ : state) op();
                       const double secs =
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                       state.counters["GB/s"] = bytes * double(state.iterations()) / 1e9 / std::max(secs, 1e-9);
                     }});
  };
  // ResNet-50 res2 activations for 4 images: 4 x 56 x 56 rows x 256 channels.
  {
    const std::int64_t rows = 4 * 56 * 56, c = 256, n = rows * c;
    auto x = std::make_shared<std::vector<float>>(Filled<float>(n));
    auto y = std::make_shared<std::vector<float>>(std::size_t(n));
    auto g = std::make_shared<std::vector<float>>(std::size_t(c), 1.0f);
    auto st = std::make_shared<std::vector<float>>(std::size_t(4 * c), 1.0f);
    bytes_case(fmt::format("batch_norm_fwd/rows{}c{}/podbench:batch_norm/threads:1", rows, c), 8.0 * double(n), [=] {
      BatchNormForwardTraining(x->data(), rows, c, g->data(), g->data(), BatchNormParams{}, y->data(), st->data(),
                               st->data() + c, st->data() + 2 * c, st->data() + 3 * c);
    });
    bytes_case(fmt::format("batch_norm_bwd/rows{}c{}/podbench:batch_norm/threads:1", rows, c), 12.0 * double(n),
               [=] {
                 BatchNormBackward(x->data(), x->data(), rows, c, g->data(), st->data(), st->data() + c, y->data(),
                                   st->data() + 2 * c, st->data() + 3 * c);
               });
    bytes_case(fmt::format("relu/n{}/podbench:relu/threads:1", n), 8.0 * double(n),
               [=] { Relu(x->data(), y->data(), n); });
    bytes_case(fmt::format("relu_grad/n{}/podbench:relu_grad/threads:1", n), 12.0 * double(n),
               [=] { ReluGrad(x->data(), x->data(), y->data(), n); });
  }
  {
    const std::int64_t rows = 256, classes = 1001;
    auto z = std::make_shared<std::vector<float>>(Filled<float>(rows * classes));
    auto d = std::make_shared<std::vector<float>>(std::size_t(rows * classes));
    auto labels = std::make_shared<std::vector<std::int32_t>>(std::size_t(rows), 7);
    bytes_case(fmt::format("softmax_xent/rows{}c{}/podbench:softmax_xent/threads:1", rows, classes),
               8.0 * double(rows * classes),
               [=] { (void)SoftmaxCrossEntropy(z->data(), labels->data(), rows, classes, 0.1f, d->data()); });
  }
  {
    const std::int64_t rows = 4096, cols = 1024;
    auto x = std::make_shared<std::vector<float>>(Filled<float>(rows * cols));
    auto y = std::make_shared<std::vector<float>>(std::size_t(rows * cols));
    auto g = std::make_shared<std::vector<float>>(std::size_t(cols), 1.0f);
    auto st = std::make_shared<std::vector<float>>(std::size_t(2 * rows));
    bytes_case(fmt::format("layer_norm_fwd/rows{}c{}/podbench:layer_norm/threads:1", rows, cols), 8.0 * double(rows * cols),
               [=] { LayerNormForward(x->data(), rows, cols, g->data(), g->data(), 1e-6f, y->data(), st->data(),
                                      st->data() + rows); });
  }
  {
    const std::int64_t n = 1 << 22;
    auto w = std::make_shared<std::vector<float>>(Filled<float>(n));
    auto gr = std::make_shared<std::vector<float>>(Filled<float>(n));
    auto m = std::make_shared<std::vector<float>>(std::size_t(n));
    auto v = std::make_shared<std::vector<float>>(std::size_t(n));
    bytes_case(fmt::format("adam/n{}/podbench:adam/threads:1", n), 28.0 * double(n),
               [=] { AdamUpdate(w->data(), gr->data(), m->data(), v->data(), n, AdamParams{}, 10); });
    bytes_case(fmt::format("sgd_momentum/n{}/podbench:sgd_momentum/threads:1", n), 20.0 * double(n),
               [=] { SgdMomentumUpdate(w->data(), gr->data(), m->data(), n, 0.1f, 0.9f, 1e-4f); });
    bytes_case(fmt::format("axpy/n{}/podbench:axpy/threads:1", n), 12.0 * double(n),
               [=] { Axpy(0.5f, gr->data(), w->data(), n); });
  }
}

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == '/') {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

// Collects every row's GFLOP/s (medians when repeated) and label while the
// console reporter prints, then prints the ratio, target and dispatch tables.
//
// Also the text podbench shows around Google Benchmark's table: a benchmark
// skipped because it cannot run here (Skip) prints once as "<name> skipped:
// <why>" rather than as Google Benchmark's "ERROR OCCURRED" line per
// repetition; and Google Benchmark's "Library was built as DEBUG" warning is
// replaced by kDebugLibraryNote, which says what it does and does not concern.
class RatioCollector : public benchmark::ConsoleReporter {
 public:
  explicit RatioCollector(bool repeated) : ConsoleReporter(OO_Tabular), repeated_(repeated) {}

  bool ReportContext(const Context& context) override {
    std::ostream& err = GetErrorStream();
    std::ostringstream google;
    SetErrorStream(&google);
    const bool ok = ConsoleReporter::ReportContext(context);
    SetErrorStream(&err);
    std::istringstream lines(google.str());
    for (std::string line; std::getline(lines, line);) {
      err << (line.find("Library was built as DEBUG") != std::string::npos ? kDebugLibraryNote : line) << "\n";
    }
    return ok;
  }

  void ReportRuns(const std::vector<Run>& all) override {
    std::vector<Run> runs;
    for (const Run& r : all) {
      if (!r.error_occurred || r.error_message.rfind(kSkipped, 0) != 0) {
        runs.push_back(r);
      } else if (skipped_.insert(r.benchmark_name()).second) {  // once, not once per repetition
        GetOutputStream() << fmt::format("{:<{}} {}\n", r.benchmark_name(), name_field_width_, r.error_message);
      }
    }
    if (!runs.empty()) ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (repeated_ && !(r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")) continue;
      const std::string name = r.run_name.function_name;
      auto it = r.counters.find("GFLOP/s");
      if (it != r.counters.end()) gflops_[name] = it->second.value;
      auto cpu = r.counters.find("cpuGFLOP/s");
      if (cpu != r.counters.end()) cpu_gflops_[name] = cpu->second.value;
      if (!r.report_label.empty()) label_[name] = r.report_label;
      for (const PairedCounters& c : {kVsF32, kVsOnednn}) {
        auto med = r.counters.find(c.median), lo = r.counters.find(c.low), hi = r.counters.find(c.high);
        if (med != r.counters.end() && lo != r.counters.end() && hi != r.counters.end()) {
          paired_[name] = {med->second.value, lo->second.value, hi->second.value};
        }
      }
    }
  }

  void PrintRatios(std::ostream& out) const {
    out << "\nRatio to peers (" << (repeated_ ? "medians" : "single runs")
        << "; > 1 means podbench is faster; cpu ratio: by thread CPU time, 1 thread only):\n";
    out << fmt::format("{:<66} {:>9} {:<22} {:>9} {:>7} {:>9}\n", "podbench", "GFLOP/s", "peer", "GFLOP/s", "ratio",
                       "cpu ratio");
    for (const auto& [name, ours] : gflops_) {
      const auto parts = Split(name);
      if (parts.size() != 4 || parts[2].rfind("podbench:", 0) != 0) continue;
      if (parts[2].find("scalar") != std::string::npos) continue;  // references, not contenders
      for (const auto& [peer_name, theirs] : gflops_) {
        const auto pp = Split(peer_name);
        if (pp.size() != 4 || pp[2].rfind("podbench:", 0) == 0) continue;
        if (pp[1] != parts[1] || pp[3] != parts[3]) continue;
        const bool same_op = pp[0] == parts[0];
        // Where oneDNN has no bf16 primitive, bf16 is compared with its fp32 one.
        const bool f32_stand_in = Bf16Op(parts[0]) && pp[0] == F32Op(parts[0]) && !Has(ToBf16Peer(pp, parts[0]));
        if (!same_op && !f32_stand_in) continue;
        std::string cpu_ratio = "-";
        const auto a = cpu_gflops_.find(name), b = cpu_gflops_.find(peer_name);
        if (a != cpu_gflops_.end() && b != cpu_gflops_.end() && b->second > 0) {
          cpu_ratio = fmt::format("{:.2f}", a->second / b->second);
        }
        out << fmt::format("{:<66} {:>9.1f} {:<22} {:>9.1f} {:>7.2f} {:>9}\n",
                           parts[0] + "/" + parts[1] + "/" + parts[2].substr(9) + "/" + parts[3], ours,
                           pp[2] + (f32_stand_in ? " (f32)" : ""), theirs, theirs > 0 ? ours / theirs : 0.0,
                           cpu_ratio);
      }
    }
  }

  // The targets: dispatched bf16 against oneDNN's bf16 on the same
  // interface (its fp32 where it has no bf16 primitive) and, for convolutions,
  // on operands it prepared once; and dispatched bf16 against dispatched fp32.
  void PrintTargets(std::ostream& out) const {
    out << "\nTargets: dispatched bf16 >= 0.9x oneDNN bf16 (fp32 where oneDNN has no bf16), bf16 >= 1.0x fp32 "
           "(GFLOP/s, "
        << (repeated_ ? "medians" : "single runs")
        << " of this run; cpu: by thread CPU time, 1 thread only; oneDNN = on podbench's fp32 tensors with its "
           "own reorders, prepacked = operands already in its types and layouts; bf16 convolutions on bf16 "
           "activations and filters, f32in/f32: on fp32 ones that the pass rounds; paired: bf16 and fp32, or podbench and "
           "oneDNN (oneDNN paired), timed call by call in one benchmark, median of the pairs' ratios and its "
           "quartiles):\n";
    out << fmt::format(
        "{:<28} {:>2} {:>8} {:<40} {:>8} {:<30} {:>6} {:>17} {:>6} {:>9} {:>6} {:>8} {:>8} {:>17} {:>9} {:>17}\n",
        "op/shape", "t", "bf16", "dispatched to", "oneDNN", "oneDNN impl", "ratio", "oneDNN paired", "cpu",
        "prepacked", "ratio", "fp32", "bf16/f32", "paired", "f32in/f32", "f32in paired");
    int rows = 0, met = 0;
    std::vector<std::pair<double, std::string>> paired_rows;  // (median, row)
    std::vector<std::string> slower;                          // paired, upper quartile below 1
    std::vector<std::pair<double, std::string>> onednn_rows;  // paired against oneDNN: (median, row)
    for (const auto& [name, ours] : gflops_) {
      const auto parts = Split(name);
      if (parts.size() != 4 || parts[2] != "podbench:dispatched" || !Bf16Op(parts[0])) continue;
      if (!TargetShape(parts[1])) continue;
      const bool gemm = parts[0].rfind("gemm", 0) == 0;
      const std::string peer = gemm ? "onednn:matmul" : "onednn:conv";
      auto row = [&](const std::string& op, const std::string& impl) {
        return op + "/" + parts[1] + "/" + impl + "/" + parts[3];
      };
      const bool has_bf16 = Has(row(parts[0], peer));
      const std::string peer_row = has_bf16 ? row(parts[0], peer) : row(F32Op(parts[0]), peer);
      const double theirs = Get(peer_row), f32 = Get(row(F32Op(parts[0]), "podbench:dispatched"));
      const double prepacked = gemm ? 0 : Get(row(has_bf16 ? parts[0] : F32Op(parts[0]), "onednn:conv_prepacked"));
      const double cpu_ours = GetCpu(name), cpu_theirs = GetCpu(peer_row);
      const double f32_inputs = gemm ? 0 : Get(row(parts[0], "podbench:dispatched_f32_inputs"));
      auto ratio = [](double a, double b) { return b > 0 && a > 0 ? fmt::format("{:.2f}", a / b) : std::string("-"); };
      const std::string op_shape = parts[0] + "/" + parts[1].substr(0, parts[1].find("_n"));
      const std::string what = op_shape + " " + parts[3].substr(8) + "t";
      // The paired figure of `impl`'s row as "median (q1-q3)", counted into
      // `into` (and, for bf16 against fp32, `slower`) when given.
      auto paired = [&](const std::string& impl, std::vector<std::pair<double, std::string>>* into,
                        bool against_f32) {
        auto it = paired_.find(row(parts[0], impl));
        if (it == paired_.end()) return std::string("-");
        const Paired& q = it->second;
        if (into != nullptr) into->emplace_back(q.median, what);
        if (into != nullptr && against_f32 && q.high < 1.0) slower.push_back(fmt::format("{} ({:.2f})", what, q.median));
        return fmt::format("{:.2f} ({:.2f}-{:.2f})", q.median, q.low, q.high);
      };
      auto num = [](double x) { return x > 0 ? fmt::format("{:.1f}", x) : std::string("-"); };
      if (theirs > 0) {  // a row without its oneDNN peer in this run counts toward no target
        ++rows;
        if (ours >= 0.9 * theirs) ++met;
      }
      out << fmt::format(
          "{:<28} {:>2} {:>8.1f} {:<40} {:>8} {:<30} {:>6} {:>17} {:>6} {:>9} {:>6} {:>8} {:>8} {:>17} {:>9} {:>17}\n",
          op_shape, parts[3].substr(8), ours, Label(name), num(theirs), Label(peer_row) + (has_bf16 ? "" : " (f32)"),
          ratio(ours, theirs), paired("paired:dispatched_vs_onednn", &onednn_rows, false), ratio(cpu_ours, cpu_theirs),
          num(prepacked), ratio(ours, prepacked), num(f32), ratio(ours, f32),
          paired("paired:dispatched_vs_f32", &paired_rows, true), ratio(f32_inputs, f32),
          paired("paired:dispatched_f32_inputs_vs_f32", nullptr, false));
    }
    if (rows == 0 && paired_rows.empty() && onednn_rows.empty()) return;
    out << fmt::format("Targets met: {} of {} (those with their oneDNN peer) at >= 0.9x oneDNN.", met,
                       Plural(rows, "row"));
    if (!onednn_rows.empty()) {
      std::sort(onednn_rows.begin(), onednn_rows.end());
      const auto at_target = std::count_if(onednn_rows.begin(), onednn_rows.end(),
                                           [](const auto& r) { return r.first >= 0.9; });
      out << fmt::format(" Paired against oneDNN: {} of {} at >= 0.9x (median of the pairs), lowest {:.2f} ({}).",
                         at_target, Plural(static_cast<long long>(onednn_rows.size()), "row"),
                         onednn_rows.front().first, onednn_rows.front().second);
    }
    if (!paired_rows.empty()) {
      std::sort(paired_rows.begin(), paired_rows.end());
      out << fmt::format(" bf16 against fp32, paired, {}: median {:.2f}, lowest {:.2f} ({}); slower than fp32 "
                         "(upper quartile below 1.00): {}",
                         Plural(static_cast<long long>(paired_rows.size()), "row"),
                         paired_rows[paired_rows.size() / 2].first, paired_rows.front().first,
                         paired_rows.front().second, slower.empty() ? std::string("none") : fmt::format("{}", fmt::join(slower, ", ")));
    }
    out << "\n";
  }

 private:
  static bool Bf16Op(const std::string& op) { return op.size() > 5 && op.substr(op.size() - 5) == "_bf16"; }
  static std::string F32Op(const std::string& op) { return op.substr(0, op.size() - 5) + "_f32"; }
  static bool TargetShape(const std::string& shape) {
    return shape == "m512n512k512" || shape == "m1024n1024k1024" || shape == "m2048n2048k2048" ||
           shape.find("_3x3") != std::string::npos;
  }
  std::string ToBf16Peer(const std::vector<std::string>& peer, const std::string& bf16_op) const {
    return bf16_op + "/" + peer[1] + "/" + peer[2] + "/" + peer[3];
  }
  bool Has(const std::string& name) const { return gflops_.count(name) != 0; }
  double Get(const std::string& name) const {
    auto it = gflops_.find(name);
    return it == gflops_.end() ? 0 : it->second;
  }
  double GetCpu(const std::string& name) const {
    auto it = cpu_gflops_.find(name);
    return it == cpu_gflops_.end() ? 0 : it->second;
  }
  std::string Label(const std::string& name) const {
    auto it = label_.find(name);
    return it == label_.end() ? "-" : it->second;
  }
  struct Paired {
    double median, low, high;  // MeasurePaired's counters
  };
  // Google Benchmark prints this warning when its library was compiled
  // without NDEBUG (Debian's libbenchmark is); the context's podbench_build
  // line says how podbench's own code was built.
  static constexpr const char* kDebugLibraryNote =
      "note: Google Benchmark's \"Library was built as DEBUG\" concerns libbenchmark itself (this one was "
      "compiled without NDEBUG, its assertions on). Its code starts and stops the timers around each batch of "
      "iterations and is not in the timed loop; the timed loops and the kernels are podbench's code, built as "
      "podbench_build above says.";

  bool repeated_;
  std::set<std::string> skipped_;  // benchmarks already shown as skipped
  std::map<std::string, Paired> paired_;
  std::map<std::string, double> gflops_, cpu_gflops_;
  std::map<std::string, std::string> label_;
};

void PrintDispatch(std::ostream& out) {
  out << "\nDispatch decisions of this run (winner, its best time, and how much faster than the runner-up; "
         "cache "
      << (dispatch::Dispatcher::Global().cache_path().empty() ? std::string("off") : dispatch::Dispatcher::Global().cache_path()) << "):\n";
  out << fmt::format("{:<10} {:<40} {:<9} {:<44} {:>10} {:<44} {:>7}\n", "family", "class", "source", "winner",
                     "best ms", "runner-up", "factor");
  for (const auto& [pc, r] : dispatch::Decisions()) {
    const auto& w = r.seconds.front();
    std::string runner = "-", factor = "-";
    if (r.seconds.size() > 1) {
      runner = r.seconds[1].first;
      if (w.second > 0) factor = fmt::format("{:.2f}x", r.seconds[1].second / w.second);
    }
    out << fmt::format("{:<10} {:<40} {:<9} {:<44} {:>10.4f} {:<44} {:>7}\n", dispatch::FamilyName(pc.family), pc.text,
                       dispatch::SourceName(r.source), w.first, w.second * 1e3, runner, factor);
  }
  if (const std::string problem = dispatch::Dispatcher::Global().CacheProblem(); !problem.empty()) {
    out << "dispatch cache: " << problem << "\n";
  }
}

// Sets Google Benchmark's flags that it reads only from its command line:
// list the selected benchmarks instead of running them, and random
// interleaving of the repetitions.
void SetGoogleBenchmarkFlags(bool list, bool interleaved) {
  static std::string prog = "podbench bench";  // Google Benchmark keeps argv[0] for its context
  std::string list_flag = std::string("--benchmark_list_tests=") + (list ? "true" : "false");
  std::string interleave_flag =
      std::string("--benchmark_enable_random_interleaving=") + (interleaved ? "true" : "false");
  char* argv[] = {prog.data(), list_flag.data(), interleave_flag.data(), nullptr};
  int argc = 3;
  benchmark::Initialize(&argc, argv);
}

// The full names (with Google Benchmark's min_time, repeats and real_time
// parts, as the filter sees them) of the registered benchmarks `filter` selects.
std::vector<std::string> Selected(const std::string& filter) {
  SetGoogleBenchmarkFlags(true, false);
  std::ostringstream names, errors;  // errors: "Failed to match any benchmarks", said better by the caller
  benchmark::ConsoleReporter lister;
  lister.SetOutputStream(&names);
  lister.SetErrorStream(&errors);
  benchmark::RunSpecifiedBenchmarks(&lister, filter);
  std::vector<std::string> out;
  std::istringstream lines(names.str());
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

int RunBenchmarks(const BenchRequest& req, std::ostream& out, std::ostream& err) {
  try {
    std::regex check(req.filter);
  } catch (const std::regex_error& e) {
    err << "podbench bench: --filter '" << req.filter << "' is not a valid regex: " << e.what() << "\n";
    return 2;
  }
  std::vector<int> thread_counts{1};
  if (HardwareThreads() > 1) thread_counts.push_back(HardwareThreads());
  static std::vector<Case> cases;  // registered once per process
  if (cases.empty()) {
    AddGemmCases(cases, thread_counts);
    AddConvCases(cases, thread_counts);
    AddOpCases(cases);
    for (const Case& c : cases) {
      benchmark::RegisterBenchmark(c.name.c_str(), c.body)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond)
          ->MinTime(req.min_time_s)
          ->Repetitions(req.repetitions)
          // JSON keeps every repetition beside the aggregates (what compare.py,
          // `podbench compare` and `bench --db` read); the table shows aggregates.
          ->ReportAggregatesOnly(req.repetitions > 1 && !req.json);
    }
  }
  // Before minutes of measuring peaks: a filter that selects nothing is a mistake.
  const std::vector<std::string> selected = Selected(req.filter);
  if (selected.empty()) {
    err << "podbench bench: --filter '" << req.filter << "' selects no benchmark (it is matched anywhere in the "
        << "full names); `podbench bench --list` prints them all, `--list --filter REGEX` those a regex selects\n";
    return 2;
  }
  if (req.list) {
    for (const std::string& name : selected) out << name << "\n";
    return 0;
  }
  // This run reports its own measurements (and refreshes the cache with them).
  dispatch::Dispatcher::Global().IgnoreCachedRankings();
  for (Isa isa : kIsas) {
    g_peak[isa].assign(std::size_t(HardwareThreads() + 1), 0.0);
    for (int t : thread_counts) {  // 1 first: the multi-thread peaks are retried against it
      g_peak[isa][std::size_t(t)] = BestWhileShared(
          [&] { return MeasurePeakGflops(isa, t); },
          [] { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }, Peak(isa, 1), t, 10);
    }
  }
  if (!OpenBlasAvailable()) {
    err << "podbench bench: OpenBLAS (" << PODBENCH_OPENBLAS_SO
        << " or libopenblas.so.0) could not be loaded; its rows are skipped (apt-get install libopenblas0)\n";
  }
  if (!onednn::Available()) {
    err << "podbench bench: oneDNN is unavailable (" << onednn::UnavailableReason()
        << "); its rows are skipped and it takes no part in dispatch\n";
  }
  const bool interleaved = req.interleave && req.repetitions > 1;
  SetGoogleBenchmarkFlags(false, interleaved);
  const CpuFeatures& cpu = DetectedCpuFeatures();
  benchmark::AddCustomContext("repetition_order", interleaved ? "interleaved" : "in sequence");
  benchmark::AddCustomContext("cpu_model", cpu.model);
  benchmark::AddCustomContext("cpu_isa", cpu.flags);
  benchmark::AddCustomContext("onednn", onednn::Available() ? onednn::VersionString() : "unavailable");
  benchmark::AddCustomContext("podbench_build", fmt::format("{} ({}; kernel sources add their ISA's flags, the "
                                                            "packing and vector op loops -O3)",
                                                            PODBENCH_BUILD_TYPE, PODBENCH_BUILD_FLAGS));
  if (onednn::Available()) benchmark::AddCustomContext("openmp_wait", onednn::OpenMpWaitSetting());
  for (Isa isa : kIsas) {
    for (int t : thread_counts) {
      benchmark::AddCustomContext(fmt::format("peak_gflops_{}_{}t", IsaName(isa), t),
                                  fmt::format("{:.1f}", Peak(isa, t)));
    }
  }

  if (req.json) {
    benchmark::JSONReporter reporter;
    reporter.SetOutputStream(&out);
    reporter.SetErrorStream(&err);
    benchmark::RunSpecifiedBenchmarks(&reporter, req.filter);
    return 0;
  }
  RatioCollector reporter(req.repetitions > 1);
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  out << "CPU: " << cpu.model << "; ISA: " << cpu.flags << "\n";
  if (interleaved) {
    out << "Repetitions: " << req.repetitions
        << ", all benchmarks' interleaved in one random order (rows print as each benchmark completes)\n";
  }
  out << "oneDNN: "
      << (onednn::Available() ? onednn::VersionString() + "; OpenMP threads wait: " + onednn::OpenMpWaitSetting()
                              : "unavailable (" + onednn::UnavailableReason() + ")")
      << "\n";
  for (Isa isa : kIsas) {
    for (int t : thread_counts) {
      std::string note = CpuSupports(isa) ? "" : cpu.capped ? " (above the PODBENCH_CPU_ISA cap)" : " (not on this CPU)";
      if (PeakLooksShared(Peak(isa, t), Peak(isa, 1), t)) {
        note = fmt::format(" (below {} x {} x the 1-thread peak after retries: its threads shared a core while "
                           "measured, so this ISA's {}-thread %peak reads high)",
                           kSharedPeakFraction, t, t);
      }
      out << fmt::format("Measured peak {:<11} {:<11} {:8.1f} GFLOP/s{}\n", IsaName(isa), Plural(t, "thread") + ":",
                         Peak(isa, t), note);
    }
  }
  benchmark::RunSpecifiedBenchmarks(&reporter, req.filter);
  reporter.PrintRatios(out);
  reporter.PrintTargets(out);
  PrintDispatch(out);
  return 0;
}

const bool kRegistered = [] {
  SetBenchRunner(RunBenchmarks);
  return true;
}();

}  // namespace
}  // namespace podbench::kernels::bench
