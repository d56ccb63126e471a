// Embedding lookup and its gradient.
#pragma once

#include <cstdint>

namespace podbench::kernels {

// y[i] = table[ids[i]] (dim floats each). REQUIRES: 0 <= ids[i] < vocab.
void EmbeddingLookup(const float* table, std::int64_t vocab, std::int64_t dim,
                     const std::int32_t* ids, std::int64_t count, float* y);
// dtable[ids[i]] += dy[i]: repeated ids accumulate. dtable is not cleared.
void EmbeddingGrad(const float* dy, const std::int32_t* ids, std::int64_t count, std::int64_t vocab,
                   std::int64_t dim, float* dtable);

}  // namespace podbench::kernels
