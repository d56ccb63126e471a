// The VectorOps loops compiled for baseline (this file's flags: kernels/CMakeLists.txt).
#include "kernels/ops/vector_ops_impl.h"

namespace podbench::kernels::ops_internal {

VectorOps VectorOps_Baseline() { return MakeVectorOps(); }

}  // namespace podbench::kernels::ops_internal
