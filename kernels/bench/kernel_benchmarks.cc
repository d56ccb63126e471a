// `podbench bench`: Google Benchmark over every variant of the kernel
// manifests at workload shapes, with oneDNN and OpenBLAS at the same shapes in
// the same process, and a table of ratios to them.
//
// Names: <op>/<shape>/<impl>/threads:<t>, impl "podbench:<variant>" for ours,
// "openblas:..." or "onednn:..." for peers. Rows of the same op, shape and
// threads are compared.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/bench/peak.h"
#include "kernels/bench/peers.h"
#include "kernels/bench_hook.h"
#include "kernels/bf16.h"
#include "kernels/conv/conv2d.h"
#include "kernels/cpu_features.h"
#include "kernels/gemm/gemm.h"
#include "kernels/ops/attention.h"
#include "kernels/ops/batch_norm.h"
#include "kernels/ops/elementwise.h"
#include "kernels/ops/layer_norm.h"
#include "kernels/ops/lstm_cell.h"
#include "kernels/ops/optimizers.h"
#include "kernels/ops/softmax_xent.h"
#include "kernels/thread_pool.h"

namespace podbench::kernels::bench {
namespace {

using std::int64_t;

struct Case {
  std::string name;
  double flops;  // per iteration
  int threads;
  std::function<void(benchmark::State&)> body;  // runs the timed loop
};

std::vector<double> g_peak_gflops;  // by thread count; index 0 unused

double ThreadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

void Measure(benchmark::State& state, double flops, int threads, const std::function<void()>& op) {
  op();  // warm: packing buffers, page faults, oneDNN JIT
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = ThreadCpuSeconds();
  for (auto _ : state) op();
  const double cpu_secs = ThreadCpuSeconds() - cpu0;
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double gflops = flops * double(state.iterations()) / 1e9 / std::max(secs, 1e-9);
  state.counters["GFLOP/s"] = gflops;
  // On one thread all the work (ours, OpenBLAS, oneDNN's OpenMP master) runs on
  // this thread, so its CPU time excludes the time a busy machine takes away.
  if (threads == 1) state.counters["cpuGFLOP/s"] = flops * double(state.iterations()) / 1e9 / std::max(cpu_secs, 1e-9);
  const double peak = g_peak_gflops[std::size_t(threads)];
  if (peak > 0) state.counters["%peak"] = 100 * gflops / peak;
}

template <typename T>
std::vector<T> Filled(int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[std::size_t(i)] = T(float(int(i % 23) - 11) * 0.01f);
  return v;
}

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
      for (const GemmVariant& v : GemmVariants()) {
        if (v.isa == Isa::kScalar && !small) continue;  // the reference is too slow for the rest
        const bool f32 = v.dtype == GemmDtype::kF32;
        const std::string op = f32 ? "gemm_f32" : "gemm_bf16";
        cases.push_back({fmt::format("{}/{}/podbench:{}/threads:{}", op, shape, v.name, t), flops, t,
                         [s, t, flops, &v, f32](benchmark::State& state) {
                           if (!CpuSupports(v.isa)) {
                             state.SkipWithError(fmt::format("skipped: this CPU has no {}", IsaName(v.isa)).c_str());
                             return;
                           }
                           auto c = std::vector<float>(std::size_t(s.m * s.n));
                           GemmProblem p;
                           p.m = s.m;
                           p.n = s.n;
                           p.k = s.k;
                           p.rsa = s.k;
                           p.rsb = s.n;
                           p.c = c.data();
                           p.ldc = s.n;
                           std::vector<float> af, bf;
                           std::vector<Bf16> ab, bb;
                           if (f32) {
                             af = Filled<float>(s.m * s.k);
                             bf = Filled<float>(s.k * s.n);
                             p.a = af.data();
                             p.b = bf.data();
                           } else {
                             ab = Filled<Bf16>(s.m * s.k);
                             bb = Filled<Bf16>(s.k * s.n);
                             p.a = ab.data();
                             p.b = bb.data();
                           }
                           Measure(state, flops, t, [&] { v.fn(p, t); });
                         }});
      }
      if (OpenBlasAvailable()) cases.push_back({fmt::format("gemm_f32/{}/openblas:sgemm/threads:{}", shape, t), flops, t,
                       [s, t, flops](benchmark::State& state) {
                         auto a = Filled<float>(s.m * s.k), b = Filled<float>(s.k * s.n);
                         std::vector<float> c(std::size_t(s.m * s.n));
                         SetPeerThreads(t);
                         Measure(state, flops, t, [&] { OpenBlasSgemm(s.m, s.n, s.k, a.data(), b.data(), c.data()); });
                       }});
      for (bool bf16 : {false, true}) {
        cases.push_back({fmt::format("{}/{}/onednn:matmul/threads:{}", bf16 ? "gemm_bf16" : "gemm_f32", shape, t),
                         flops, t, [s, t, flops, bf16](benchmark::State& state) {
                           SetPeerThreads(t);
                           std::unique_ptr<OneDnnOp> op;
                           try {
                             op = MakeOneDnnMatmul(s.m, s.n, s.k, bf16);
                           } catch (const std::exception& e) {
                             state.SkipWithError(fmt::format("skipped: oneDNN has no {} matmul for this CPU ({})",
                                                             bf16 ? "bf16" : "f32", e.what()).c_str());
                             return;
                           }
                           state.SetLabel(op->Impl());
                           Measure(state, flops, t, [&] { op->Run(); });
                         }});
      }
    }
  }
}

void AddConvCases(std::vector<Case>& cases, const std::vector<int>& thread_counts) {
  // ResNet-50 convolutions (batch 4 per emulated core keeps a run short):
  // the 3x3 of each stage, a strided 3x3, the stem 7x7/2 and a 1x1.
  struct Shape { const char* what; int64_t n, h, w, c, oc, kh, kw, stride, pad; };
  const Shape shapes[] = {
      {"res2_3x3", 4, 56, 56, 64, 64, 3, 3, 1, 1},     {"res3_3x3", 4, 28, 28, 128, 128, 3, 3, 1, 1},
      {"res4_3x3", 4, 14, 14, 256, 256, 3, 3, 1, 1},   {"res5_3x3", 4, 7, 7, 512, 512, 3, 3, 1, 1},
      {"res3_3x3s2", 4, 56, 56, 128, 128, 3, 3, 2, 1}, {"stem_7x7s2", 4, 224, 224, 3, 64, 7, 7, 2, 3},
      {"res2_1x1", 4, 56, 56, 64, 256, 1, 1, 1, 0},
  };
  for (const Shape& s : shapes) {
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
    const double flops = Conv2dFlops(cs);
    const std::string shape = fmt::format("{}_n{}h{}w{}c{}oc{}", s.what, s.n, s.h, s.w, s.c, s.oc);
    for (int t : thread_counts) {
      for (bool bf16 : {false, true}) {
        cases.push_back({fmt::format("conv2d_f32/{}/podbench:conv2d_nhwc_{}/threads:{}", shape,
                                     bf16 ? "bf16_mxu" : "f32", t),
                         flops, t, [cs, t, flops, bf16](benchmark::State& state) {
                           auto x = Filled<float>(cs.n * cs.h * cs.w * cs.c);
                           auto w = Filled<float>(cs.kh * cs.kw * cs.c * cs.oc);
                           std::vector<float> y(std::size_t(cs.n * cs.OutH() * cs.OutW() * cs.oc));
                           const Precision prec = bf16 ? Precision::kBf16 : Precision::kF32;
                           Measure(state, flops, t, [&] { Conv2dForward(cs, x.data(), w.data(), y.data(), prec, t); });
                         }});
      }
      cases.push_back({fmt::format("conv2d_f32/{}/onednn:conv/threads:{}", shape, t), flops, t,
                       [s, t, flops](benchmark::State& state) {
                         SetPeerThreads(t);
                         std::unique_ptr<OneDnnOp> op;
                         try {
                           op = MakeOneDnnConv(s.n, s.h, s.w, s.c, s.oc, s.kh, s.kw, s.stride, s.pad);
                         } catch (const std::exception& e) {
                           state.SkipWithError(fmt::format("skipped: oneDNN convolution unavailable ({})", e.what()).c_str());
                           return;
                         }
                         state.SetLabel(op->Impl());
                         Measure(state, flops, t, [&] { op->Run(); });
                       }});
    }
  }
}

// Memory-bound kernels, reported in GB/s of their compulsory traffic (fp32),
// and the GEMM-based attention and LSTM cell in GFLOP/s. No peers.
void AddOpCases(std::vector<Case>& cases) {
  auto bytes_case = [&](std::string name, double bytes, std::function<void()> op) {
    cases.push_back({std::move(name), 0, 1, [bytes, op](benchmark::State& state) {
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
    bytes_case(fmt::format("relu/n{}/podbench:relu/threads:1", n), 8.0 * double(n),
               [=] { Relu(x->data(), y->data(), n); });
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
  }
}

// Collects the GFLOP/s of every row (medians when repeated) while the wrapped
// reporter prints, then prints ours / peer for rows of the same op, shape and threads.
class RatioCollector : public benchmark::ConsoleReporter {
 public:
  explicit RatioCollector(bool repeated) : ConsoleReporter(OO_Tabular), repeated_(repeated) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      if (repeated_ && !(r.run_type == Run::RT_Aggregate && r.aggregate_name == "median")) continue;
      auto it = r.counters.find("GFLOP/s");
      if (it != r.counters.end()) gflops_[r.run_name.function_name] = it->second.value;
      auto cpu = r.counters.find("cpuGFLOP/s");
      if (cpu != r.counters.end()) cpu_gflops_[r.run_name.function_name] = cpu->second.value;
    }
  }
  void PrintRatios(std::ostream& out) const {
    out << "\nRatio to peers (" << (repeated_ ? "medians" : "single runs")
        << "; > 1 means podbench is faster; cpu ratio: by thread CPU time, 1 thread only):\n";
    out << fmt::format("{:<58} {:>9} {:<22} {:>9} {:>7} {:>9}\n", "podbench", "GFLOP/s", "peer", "GFLOP/s",
                       "ratio", "cpu ratio");
    for (const auto& [name, ours] : gflops_) {
      const auto parts = Split(name);
      if (parts.size() != 4 || parts[2].rfind("podbench:", 0) != 0) continue;
      if (parts[2].find("__scalar") != std::string::npos) continue;  // references, not contenders
      for (const auto& [peer_name, theirs] : gflops_) {
        const auto pp = Split(peer_name);
        if (pp.size() != 4 || pp[2].rfind("podbench:", 0) == 0) continue;
        if (pp[1] != parts[1] || pp[3] != parts[3]) continue;
        // bf16 GEMM is also compared with the fp32 peers: without AVX-512 BF16
        // the arithmetic is fp32 either way, and oneDNN 2.6 has no bf16 matmul for AVX2.
        const bool same_op = pp[0] == parts[0];
        const bool f32_stand_in = parts[0] == "gemm_bf16" && pp[0] == "gemm_f32";
        if (!same_op && !f32_stand_in) continue;
        std::string cpu_ratio = "-";
        const auto a = cpu_gflops_.find(name), b = cpu_gflops_.find(peer_name);
        if (a != cpu_gflops_.end() && b != cpu_gflops_.end() && b->second > 0) {
          cpu_ratio = fmt::format("{:.2f}", a->second / b->second);
        }
        out << fmt::format("{:<58} {:>9.1f} {:<22} {:>9.1f} {:>7.2f} {:>9}\n",
                           parts[0] + "/" + parts[1] + "/" + parts[2].substr(9) + "/" + parts[3], ours,
                           pp[2] + (f32_stand_in ? " (f32)" : ""), theirs, theirs > 0 ? ours / theirs : 0.0,
                           cpu_ratio);
      }
    }
  }

 private:
  static std::vector<std::string> Split(const std::string& s) {
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
  bool repeated_;
  std::map<std::string, double> gflops_, cpu_gflops_;
};

int RunBenchmarks(const BenchRequest& req, std::ostream& out, std::ostream& err) {
  try {
    std::regex check(req.filter);
  } catch (const std::regex_error& e) {
    err << "podbench bench: --filter '" << req.filter << "' is not a valid regex: " << e.what() << "\n";
    return 2;
  }
  std::vector<int> thread_counts{1};
  if (HardwareThreads() > 1) thread_counts.push_back(HardwareThreads());
  g_peak_gflops.assign(std::size_t(HardwareThreads() + 1), 0.0);
  for (int t : thread_counts) g_peak_gflops[std::size_t(t)] = MeasureFp32PeakGflops(t);

  if (!OpenBlasAvailable()) {
    err << "podbench bench: OpenBLAS (" << PODBENCH_OPENBLAS_SO
        << " or libopenblas.so.0) could not be loaded; its rows are left out (apt-get install libopenblas0)\n";
  }
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
  for (int t : thread_counts) {
    benchmark::AddCustomContext(fmt::format("peak_fp32_gflops_{}t", t),
                                fmt::format("{:.1f}", g_peak_gflops[std::size_t(t)]));
  }
  benchmark::AddCustomContext("podbench_f32_gemm", SelectedGemm(GemmDtype::kF32).name);
  benchmark::AddCustomContext("podbench_bf16_gemm", SelectedGemm(GemmDtype::kBf16).name);

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
  for (int t : thread_counts) {
    out << fmt::format("Measured fp32 FMA peak, {} thread(s): {:.1f} GFLOP/s\n", t, g_peak_gflops[std::size_t(t)]);
  }
  benchmark::RunSpecifiedBenchmarks(&reporter, req.filter);
  reporter.PrintRatios(out);
  return 0;
}

const bool kRegistered = [] {
  SetBenchRunner(RunBenchmarks);
  return true;
}();

}  // namespace
}  // namespace podbench::kernels::bench
