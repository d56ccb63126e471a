// A fresh temporary folder for one test, removed when it goes out of scope.
#pragma once

#include <filesystem>
#include <string>

namespace podbench::testing {

class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// Runs `command` through /bin/sh; returns its exit status and fills `output`
// with stdout and stderr together.
int RunCommand(const std::string& command, std::string* output);

// Runs the podbench binary under test (PodbenchBinary()) with `args`; returns
// its stdout and stderr together and sets *rc to its exit status.
std::string Podbench(const std::string& args, int* rc);

// As Podbench, with the two streams kept apart: returns stdout alone (what a
// tool parses) and, when `err` is not null, fills it with stderr.
std::string PodbenchStdout(const std::string& args, int* rc, std::string* err = nullptr);

}  // namespace podbench::testing
