// A RankGroup that is rank `rank` of `size` but runs no collectives, for
// tests of what one rank of an `mpirun` job computes alone (which cores it
// holds, which examples it generates). Every collective is refused
// (Unimplemented), so a test that reaches one fails instead of hanging.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "topology/rank_group.h"

namespace podbench::testing {

class StubRank : public topology::RankGroup {
 public:
  StubRank(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  uint64_t bytes_sent() const override { return 0; }
  Status Run(const topology::Schedule&, topology::CoreBuffers&, int) override {
    return Status::Unimplemented("stub rank: no collectives");
  }
  Result<std::vector<std::string>> AllGather(std::string_view) override {
    return Status::Unimplemented("stub rank: no collectives");
  }

 private:
  int rank_, size_;
};

}  // namespace podbench::testing
