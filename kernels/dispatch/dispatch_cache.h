// Private to kernels/dispatch (and its tests): the file that keeps the
// dispatch rankings of one CPU and build between processes.
//
// Path: <dir>/kernel-dispatch-<id>.txt, <id> = 16 hex digits of a hash of the
// CPU model, its ISA flags (after PODBENCH_CPU_ISA), the build (git hash), the
// variant names of both manifests and the oneDNN version: another CPU or
// build gets another file. A dirty tree keeps its git hash: after editing a
// kernel, delete the file (or set PODBENCH_KERNEL_CACHE=off).
//
// Format: text, one record per line, fields separated by single spaces.
//   podbench-kernel-dispatch 1                        (line 1: format, version)
//   # cpu ...; isa ...; build ...; onednn ...         (comments: for people)
//   <family> <class> <variant> <seconds> [<variant> <seconds> ...]
// e.g. "gemm_bf16 m512.n512.k512.nn.t1 bf16_gemm__onednn 0.000713 bf16_gemm__avx512bf16_16x32 0.000951":
// the ranking of that class, fastest first, each with its best measured time.
// A file whose first line differs is ignored as a whole; a line that does not
// parse is skipped (and counted); a later line for the same class replaces an
// earlier one.
//
// Writers hold an exclusive flock() on <path>.lock while they read the file,
// merge their records into it and write a temporary file in the same
// directory that they rename() over it: readers see the old or the new file,
// never a mix, and writers that overlap lose none of each other's records.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "kernels/dispatch/dispatch.h"

namespace podbench::kernels::dispatch {

struct CacheRecord {
  Family family = Family::kGemmF32;
  std::string cls;  // ProblemClass::text
  std::vector<std::pair<std::string, double>> seconds;  // fastest first
};

inline constexpr const char* kCacheHeader = "podbench-kernel-dispatch 1";

// One record as a line (no newline); parses one line. Parse fails on
// anything but a well-formed record (names without whitespace, finite
// non-negative times, at least one variant).
std::string FormatRecord(const CacheRecord& r);
bool ParseRecord(const std::string& line, CacheRecord* r);

// Records of the file at `path`, later lines winning; *skipped counts lines
// that did not parse. A missing file is an empty list; a file of another
// format is an empty list with *skipped = its line count.
Result<std::vector<CacheRecord>> ReadCacheFile(const std::string& path, int* skipped);

// Merges `updates` into the file at `path` (creating it and its directory)
// under the lock described above; `comment` becomes the "# " line.
Status MergeIntoCacheFile(const std::string& path, const std::string& comment,
                          const std::vector<CacheRecord>& updates);

}  // namespace podbench::kernels::dispatch
