// What one emulated TPU-v3 TensorCore is, as the cost functions need it.
//
// kernels/ owns this type; topology/ owns the system description file that
// fills it in (a pod is made of cores). All values come from that file, whose
// defaults cite ../shared/reference/tpu-v3.md. Fields marked "calibration"
// are fitted, not published.
#pragma once

namespace podbench::kernels {

struct CoreSpec {
  int mxus_per_core = 2;          // matrix units per TensorCore
  int mxu_dim = 128;              // each MXU is mxu_dim x mxu_dim MACs (bf16 x bf16 -> fp32)
  double clock_hz = 940e6;        // core clock
  int vector_lanes = 128;         // vector unit: lanes x sublanes fp32 ALUs
  int vector_sublanes = 8;
  double hbm_bytes = 16.0 * (1ull << 30);  // HBM per core
  double hbm_bandwidth = 450e9;   // bytes/s per core
  double vmem_bytes = 16.0 * (1ull << 20); // on-core vector memory
  // Calibration: fraction of MXU peak reached on well-shaped (128-multiple) tiles.
  double mxu_efficiency = 1.0;
  // Calibration: fraction of HBM bandwidth reached.
  double hbm_efficiency = 1.0;
  // Calibration: fixed cost per op (launch, pipeline fill), seconds.
  double op_overhead_s = 0.0;

  // Peak MXU throughput in FLOP/s (2 FLOP per MAC).
  double mxu_peak_flops() const {
    return 2.0 * mxus_per_core * mxu_dim * mxu_dim * clock_hz;
  }
  // Peak vector-unit throughput in fp32 ops/s.
  double vector_peak_ops() const { return double(vector_lanes) * vector_sublanes * clock_hz; }
};

}  // namespace podbench::kernels
