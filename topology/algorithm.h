// Collective algorithms: separate pieces registered by name.
//
// An algorithm turns a logical topology and a payload into (a) an analytic
// alpha-beta time and (b) a Schedule that the event simulation times over the
// real links and that the executors run on real data. Every algorithm is
// payload-type agnostic; fp32 and bf16 differ only in bytes per element and
// in the executors' arithmetic.
//
// Algorithms are looked up in AlgorithmRegistry by name (name -> factory).
// Built-in ones are registered by RegisterBuiltinAlgorithms(), which the
// registry calls once; a new algorithm adds one Register call there (or
// registers itself at start-up from a binary that links it).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "topology/logical.h"
#include "topology/schedule.h"

namespace podbench::topology {

// What a collective computes; the contract each executor result is checked against.
enum class CollectiveKind {
  kAllReduce,      // every member ends with the sum over its group, all elements
  kReduceScatter,  // each member ends with the group sum on Schedule::owned[core]
  kAllGather,      // each member contributes Schedule::owned[core]; all end with all ranges
  kHaloExchange,   // buffer = [top halo | interior (2 h) | bottom halo], h = elements / 4;
                   // core i of a replica gets rows of i-1 in its top halo (from i-1's
                   // elements [2h, 3h)) and of i+1 in its bottom halo (from [h, 2h))
  kBroadcast,      // every member ends with the buffer of its group's first core
};

const char* KindName(CollectiveKind kind);

struct AlgorithmOptions {
  int chunks = 0;  // pipeline chunks; 0 = the algorithm's default
};

class CollectiveAlgorithm {
 public:
  virtual ~CollectiveAlgorithm() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual CollectiveKind kind() const = 0;

  // Alpha-beta time in seconds to run on `logical` with a per-core buffer of
  // `bytes`, assuming no link carries two messages at once. Halo exchange:
  // `bytes` is the whole buffer (halo = bytes / 4).
  virtual double AnalyticTime(const LogicalTopology& logical, double bytes) const = 0;

  // The schedule for a buffer of `elements` per core. REQUIRES: elements <
  // 2^32. InvalidArgument when the algorithm does not apply to `logical`.
  virtual Result<Schedule> Build(const LogicalTopology& logical, uint64_t elements) const = 0;
};

using AlgorithmFactory = std::function<std::unique_ptr<CollectiveAlgorithm>(const AlgorithmOptions&)>;

class AlgorithmRegistry {
 public:
  // The process-wide registry, with the built-in algorithms.
  static AlgorithmRegistry& Global();

  // REQUIRES: `name` not registered yet.
  void Register(std::string name, std::string description, AlgorithmFactory factory);
  // NotFound (listing the known names) for an unknown name.
  Result<std::unique_ptr<CollectiveAlgorithm>> Create(std::string_view name,
                                                      const AlgorithmOptions& options = {}) const;
  std::vector<std::string> Names() const;  // sorted

 private:
  struct Entry {
    std::string description;
    AlgorithmFactory factory;
  };
  std::map<std::string, Entry, std::less<>> entries_;
};

void RegisterBuiltinAlgorithms(AlgorithmRegistry& registry);

}  // namespace podbench::topology
