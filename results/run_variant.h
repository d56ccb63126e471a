// What sets a stored run apart from a plain run of its workload, slice, mode
// and preset, read back from the flags the run was stored with
// (harness/run/settings.h FlagsJson): its --set overrides and the system
// description that priced it.
//
// A run with neither is PLAIN. Every table that stands for a preset (the
// rows of `scaling`, `report` and `reproduce`) takes only plain runs, and
// only those of one build (git hash), since a build's cost model makes the
// projected figures; every other run is shown as its own labelled row,
// named by Describe(), or not at all, and the table says which.
#pragma once

#include <string>
#include <vector>

#include "results/store.h"

namespace podbench::results {

struct RunVariant {
  std::vector<std::string> sets;  // "key=value" as given to --set, sorted
  // "" = the built-in system (or a file holding exactly its text); else the
  // file as given with its fingerprint; kSystemNotRecorded for runs stored
  // by builds that did not record it.
  std::string system;
  bool plain() const { return sets.empty() && system.empty(); }
  // "set allreduce=ring, system fast.yaml (fnv1a64:0123abcd...)"; "" when plain.
  std::string Describe() const;
  bool operator==(const RunVariant&) const = default;
  bool operator<(const RunVariant& o) const { return Describe() < o.Describe(); }
};

inline constexpr const char* kSystemNotRecorded = "not recorded";

// Reads `r.run.flags_json`. Flags that are not a JSON object, or lack the
// system fingerprint, give kSystemNotRecorded: such a run is never plain.
RunVariant VariantOf(const RunRecord& r);

// A short build name for labels: the git hash's first 10 characters (and
// "-dirty" when the build had uncommitted changes); "unknown build" if empty.
std::string ShortBuild(const std::string& git_hash);

}  // namespace podbench::results
