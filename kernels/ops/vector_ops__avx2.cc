// The VectorOps loops compiled for avx2 (this file's flags: kernels/CMakeLists.txt).
#include "kernels/ops/vector_ops_impl.h"

namespace podbench::kernels::ops_internal {

VectorOps VectorOps_Avx2() { return MakeVectorOps(); }

}  // namespace podbench::kernels::ops_internal
