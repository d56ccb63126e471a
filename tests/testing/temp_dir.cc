#include "tests/testing/temp_dir.h"

#include "tests/testing/shared_dir.h"

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace podbench::testing {

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "podbench-test-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

int RunCommand(const std::string& command, std::string* output) {
  output->clear();
  FILE* pipe = popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) output->append(buf.data(), n);
  int status = pclose(pipe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Podbench(const std::string& args, int* rc) {
  std::string out;
  *rc = RunCommand(PodbenchBinary().string() + " " + args, &out);
  return out;
}

std::string PodbenchStdout(const std::string& args, int* rc, std::string* err) {
  TempDir dir;
  const std::filesystem::path out_file = dir / "stdout", err_file = dir / "stderr";
  std::string ignored;
  *rc = RunCommand("(" + PodbenchBinary().string() + " " + args + " >" + out_file.string() + " 2>" +
                       err_file.string() + ")",
                   &ignored);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  if (err != nullptr) *err = read(err_file);
  return read(out_file);
}

std::string ReadText(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int CountOccurrences(const std::string& text, const std::string& key) {
  int n = 0;
  for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) ++n;
  return n;
}

}  // namespace podbench::testing
