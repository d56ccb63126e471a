// AMX peak loop: four independent 16x16 fp32 accumulator tiles, each
// tdpbf16ps 16 x 16 x 32 bf16 multiply-adds, A and B tiles loaded once.
// Compiled with -mamx-tile -mamx-bf16 (this file only); the process has the
// kernel's AMX permission (kernels/cpu_features.cc) when CpuSupports(kAmxBf16).
#include <immintrin.h>

#include <cstring>

#include "kernels/bench/peak.h"

namespace podbench::kernels::bench {
namespace {

struct alignas(64) TileConfig {
  std::uint8_t palette = 1, start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

}  // namespace

double PeakLoopTdpbf16_Amx(std::int64_t iters, float* sink) {
  TileConfig cfg;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  _tile_loadconfig(&cfg);
  alignas(64) std::uint16_t src[16 * 32];
  for (int i = 0; i < 16 * 32; ++i) src[i] = std::uint16_t(0x3c00 + (i % 7));  // small bf16 values
  alignas(64) float out[16 * 16];
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, src, 64);
  _tile_loadd(5, src, 64);
  _tile_loadd(6, src, 64);
  _tile_loadd(7, src, 64);
  for (std::int64_t it = 0; it < iters; ++it) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  float s = 0;
  _tile_stored(0, out, 64);
  s += out[0];
  _tile_stored(3, out, 64);
  s += out[255];
  _tile_release();
  *sink = s;
  return double(iters) * 4 * 16 * 16 * 32 * 2;
}

}  // namespace podbench::kernels::bench
