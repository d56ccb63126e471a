// Host input pipeline throughput: images/s per host core for JPEG decode +
// random-resized crop + flip + normalise to 224x224, as a TPU host feeds its
// cores. Run: build/release/workloads/input_pipeline_bench
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "workloads/data/augment.h"
#include "workloads/data/image_source.h"
#include "workloads/data/input_pipeline.h"
#include "workloads/data/jpeg.h"

namespace podbench::data {
namespace {

namespace fs = std::filesystem;

// 128 ImageNet-sized (375x500) JPEGs, written once per process.
const fs::path& Folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("podbench-bench-imagenet-" + std::to_string(getpid()));
    SyntheticImageSpec spec;
    spec.height = 375;
    spec.width = 500;
    spec.num_classes = 12;
    Status st = WriteSyntheticImageFolder(d, spec, 128, 90);
    if (!st.ok()) std::fprintf(stderr, "%s\n", st.ToString().c_str());
    std::atexit([] { std::error_code ec; fs::remove_all(Folder(), ec); });
    return d;
  }();
  return dir;
}

void BM_JpegDecode(benchmark::State& state) {
  auto src = ImageFolderSource::Open(Folder());
  if (!src.ok()) { state.SkipWithError(src.status().ToString().c_str()); return; }
  size_t i = 0;
  for (auto _ : state) {
    auto li = (*src)->Get(i++ % (*src)->size());
    benchmark::DoNotOptimize(li);
  }
  state.counters["images/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_JpegDecode)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_CropResizeNormalize(benchmark::State& state) {
  SyntheticImageSpec spec;
  spec.height = 375;
  spec.width = 500;
  Image img = MakeSyntheticImage(spec, 1).image;
  std::vector<float> out(224 * 224 * 3);
  std::mt19937_64 rng(1);
  PipelineOptions o;
  for (auto _ : state) {
    CropWindow w = SampleRandomResizedCrop(img.height, img.width, 0.08, 1.0, 0.75, 4.0 / 3, rng);
    ResizeNormalize(img, w, 224, 224, (rng() & 1) != 0, o.mean, o.stddev, out.data());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["images/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_CropResizeNormalize)->Unit(benchmark::kMillisecond)->UseRealTime();

// The whole pipeline with N worker threads; "images/s/core" divides by N.
void BM_Pipeline(benchmark::State& state) {
  auto src = ImageFolderSource::Open(Folder());
  if (!src.ok()) { state.SkipWithError(src.status().ToString().c_str()); return; }
  PipelineOptions o;
  o.batch_size = 16;
  o.threads = static_cast<int>(state.range(0));
  auto p = InputPipeline::Create(*src, o);
  if (!p.ok()) { state.SkipWithError(p.status().ToString().c_str()); return; }
  int64_t images = 0;
  for (auto _ : state) {
    auto b = (*p)->Next();
    if (!b.ok()) { state.SkipWithError(b.status().ToString().c_str()); return; }
    images += b->size;
  }
  state.counters["images/s"] = benchmark::Counter(static_cast<double>(images), benchmark::Counter::kIsRate);
  state.counters["images/s/core"] = benchmark::Counter(static_cast<double>(images) / o.threads, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Pipeline)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace podbench::data

BENCHMARK_MAIN();
