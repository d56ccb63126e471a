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

// The whole text of the file at `p` ("" when it cannot be read: the test's
// own expectations then fail, naming what they looked for).
std::string ReadText(const std::filesystem::path& p);

// How many times `key` occurs in `text` (overlapping occurrences counted).
int CountOccurrences(const std::string& text, const std::string& key);

}  // namespace podbench::testing
