// Private to kernels/ (and its tests and benchmarks): the convolution
// variants that compete in dispatch, one list per precision, generated from
// conv/conv_manifest.inc (lowerings over every GEMM variant of
// gemm/gemm_manifest.inc, and oneDNN's convolution).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "kernels/conv/conv2d.h"
#include "kernels/cpu_features.h"

namespace podbench::kernels {

enum class ConvPass { kForward, kBackwardData, kBackwardFilter };

// "fwd", "bwd_data", "bwd_filter".
const char* ConvPassName(ConvPass pass);

// The operands of one pass, in conv2d.h's layouts: forward (x, filter -> y),
// backward data (dy, filter -> dx), backward filter (x, dy -> dfilter), and
// what the activation operands and the filter hold (conv2d.h: Values::kBf16
// promises bf16 values, which a bf16 pass then does not round again;
// `weights` means nothing to the filter gradient, whose filter is its output).
struct ConvArgs {
  const float* in0 = nullptr;
  const float* in1 = nullptr;
  float* out = nullptr;
  Values activations = Values::kF32;
  Values weights = Values::kF32;
  // Whether a bf16 pass may take the activation operands as they are.
  bool Bf16Activations() const { return activations == Values::kBf16; }
  // Whether a bf16 forward or data-gradient pass may take the filter as it is.
  bool Bf16Weights() const { return weights == Values::kBf16; }
};

// Elements of in0, in1 and out of `pass` for shape `s`.
std::int64_t ConvIn0Elems(ConvPass pass, const Conv2dShape& s);
std::int64_t ConvIn1Elems(ConvPass pass, const Conv2dShape& s);
std::int64_t ConvOutElems(ConvPass pass, const Conv2dShape& s);

struct ConvVariant {
  std::string name;  // "im2col+<GEMM variant>" or "onednn"
  Precision precision;
  Isa isa;           // the least the CPU needs (oneDNN: kAvx2Fma; it may need more per shape)
  // Whether this variant can run `pass` at `s` on this CPU (oneDNN: whether it
  // has an implementation that meets the precision's contract there).
  bool (*supports)(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, int threads);
  // REQUIRES: supports(...). Writes args.out (the contract of conv2d.h).
  void (*run)(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, const ConvArgs& args, int threads);
  // The unit it runs `pass` at `s` on (oneDNN: the ISA of its implementation).
  Isa (*runs_on)(const ConvVariant& v, ConvPass pass, const Conv2dShape& s, int threads);
  int gemm_index = -1;  // the GemmVariants() entry a lowering runs on; -1 for oneDNN
};

// Every convolution variant of `precision`, in manifest order. Those of isa
// kScalar (the lowering over the scalar GEMM) are references: they compete
// only when nothing else can run.
std::span<const ConvVariant> ConvVariants(Precision precision);

// The variant Conv2dForward / Conv2dBackward* run for this problem (dispatch:
// forced, ranked, or measured now on args' inputs, writing scratch only).
const ConvVariant& DispatchedConv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec,
                                  int threads);

// Runs `pass` on the dispatched variant: what Conv2dForward / Conv2dBackward*
// do, for a pass chosen at run time (benchmarks, tests).
void RunDispatchedConv(ConvPass pass, const Conv2dShape& s, const ConvArgs& args, Precision prec, int threads);

}  // namespace podbench::kernels
