#include "kernels/ops/embedding.h"

#include <cassert>
#include <cstring>

namespace podbench::kernels {

void EmbeddingLookup(const float* table, std::int64_t vocab, std::int64_t dim,
                     const std::int32_t* ids, std::int64_t count, float* y) {
  for (std::int64_t i = 0; i < count; ++i) {
    assert(ids[i] >= 0 && ids[i] < vocab);
    (void)vocab;
    std::memcpy(y + i * dim, table + std::int64_t(ids[i]) * dim, std::size_t(dim) * sizeof(float));
  }
}

void EmbeddingGrad(const float* dy, const std::int32_t* ids, std::int64_t count, std::int64_t vocab,
                   std::int64_t dim, float* dtable) {
  for (std::int64_t i = 0; i < count; ++i) {
    assert(ids[i] >= 0 && ids[i] < vocab);
    (void)vocab;
    float* row = dtable + std::int64_t(ids[i]) * dim;
    for (std::int64_t j = 0; j < dim; ++j) row[j] += dy[i * dim + j];
  }
}

}  // namespace podbench::kernels
