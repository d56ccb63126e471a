// How `podbench bench` reaches the kernel benchmarks without the harness (or
// the tests) linking Google Benchmark, oneDNN and OpenBLAS: the optional
// benchmark library (kernels/bench, built when PODBENCH_BENCHMARKS=ON and
// linked only into the podbench executable) installs a runner at static
// initialisation. No runner means the build has no benchmarks.
#pragma once

#include <iosfwd>
#include <string>

namespace podbench::kernels {

struct BenchRequest {
  std::string filter = ".";  // regex over benchmark names
  bool json = false;         // Google Benchmark's JSON reporter instead of text
  // > 1: the text table reports medians (and mean, stddev) only; JSON also
  // has every repetition.
  int repetitions = 1;
  double min_time_s = 0.2;   // minimum measuring time per benchmark and repetition
  // With repetitions > 1: run the repetitions of all selected benchmarks in
  // one random interleaved order (Google Benchmark's random interleaving), so
  // that a shared machine's drift falls on every contender alike instead of
  // on whichever ran during it. False: each benchmark's repetitions back to back.
  bool interleave = true;
  // Print the full names of the benchmarks `filter` selects (what it is
  // matched against), one a line, and measure nothing.
  bool list = false;
};

// Returns a process exit code: 0 ok; 2 bad request (an invalid regex, or a
// filter that selects no benchmark), with the message on `err`.
using BenchRunner = int (*)(const BenchRequest& request, std::ostream& out, std::ostream& err);

void SetBenchRunner(BenchRunner runner);
// Null when the build has no benchmarks.
BenchRunner GetBenchRunner();

}  // namespace podbench::kernels
