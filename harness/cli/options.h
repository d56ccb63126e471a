// How a subcommand declares its arguments: a narrow, podbench-owned front of
// CLI11. Only harness/cli/options.cc and harness/cli/app.cc include CLI11, whose
// header adds to every translation unit that includes it ~6 s of compile CPU
// (~12 s under ASan: cmd_score.cc went from 10.4 to 4.6 s, and from 18.5 to
// 6.9 s, without it); every subcommand (cmd_*.cc) declares its options here.
//
// Each call forwards to the CLI11 call of the same meaning, so help text,
// parse-error messages and exit codes are CLI11's: a bad value is a parse
// error ("--jobs: Value 0 not in range [1 - 64]", "--usage: x not in
// {training,hpc}", "logs is required") that cli::Main prints and turns into
// kExitUsage. Nothing here throws except while the application is built, and
// then only for a programming error (a name declared twice), which Main reports.
//
// Handles are plain pointers into the CLI11 application that cli::Main owns:
// they stay valid, and may be captured in callbacks, until Main returns.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace podbench::cli {

// One declared option, flag or positional argument. Each setter returns the
// same handle, to chain: `sub.Add("--jobs", jobs, "...").Range(1, 64)`.
class Option {
 public:
  // Tells CLI11's application-building code which option this is; not for
  // subcommands (they get handles from Command).
  explicit Option(CLI::Option* option) : option_(option) {}

  // Missing from the command line: a parse error "NAME is required".
  Option Required();
  // The value must be one of `names` (help shows "{a,b}"); otherwise a parse error.
  Option Choices(const std::vector<std::string>& names);
  // The value must lie in [min, max] (CLI11's range validator, of the
  // bounds' type); otherwise a parse error.
  Option Range(int min, int max);
  Option Range(double min, double max);
  // The value must be a finite number >= 0 (help shows "NONNEGATIVE"); otherwise a parse error.
  Option NonNegative();
  // The value is comma-separated names, none empty ("", "a,,b" and "a," are
  // parse errors: an empty list would otherwise read as the default, all).
  Option NameList();
  // Giving both this and `other` is a parse error "NAME excludes OTHER".
  Option Excludes(const Option& other);
  // Left out of --help; still parsed.
  Option Hidden();

  // How many times the command line gave it (0 before parsing).
  [[nodiscard]] std::size_t Count() const;

 private:
  CLI::Option* option_;
};

// A subcommand being declared (or the root application, in app.cc). `name` in
// the Add* calls follows CLI11: "--long", "-s,--long", or a bare word for a
// positional argument (in declaration order). The bound variable must outlive
// parsing (subcommands keep theirs in a shared_ptr captured by the callback);
// it keeps its value when the option is absent.
class Command {
 public:
  // Wraps the CLI11 application that app.cc builds; not for subcommands.
  explicit Command(CLI::App* app) : app_(app) {}

  // A subcommand `name` with its one-line `description` (shown in the parent's --help).
  Command AddSubcommand(const std::string& name, const std::string& description);

  // An option taking one value (CLI11's type names in --help: TEXT, INT, UINT,
  // FLOAT). A value that does not convert is a parse error naming the option,
  // and so is a FLOAT that is not finite ("nan", "inf").
  Option Add(const std::string& name, std::string& into, const std::string& help);
  Option Add(const std::string& name, int& into, const std::string& help);
  Option Add(const std::string& name, uint64_t& into, const std::string& help);
  Option Add(const std::string& name, double& into, const std::string& help);
  // An integer that stays absent unless the option is given (INT in --help).
  Option Add(const std::string& name, std::optional<int>& into, const std::string& help);
  // Every value given (repeatable option, or the remaining positional words), in order.
  Option Add(const std::string& name, std::vector<std::string>& into, const std::string& help);
  // An option whose value goes to `set` instead of a variable (called once
  // per parse, after conversion).
  Option AddFunction(const std::string& name, std::function<void(const std::string&)> set,
                     const std::string& help);
  Option AddFunction(const std::string& name, std::function<void(uint64_t)> set, const std::string& help);
  // A flag: present sets `into` true. A name "!--no-x" in the list sets it false.
  Option AddFlag(const std::string& name, bool& into, const std::string& help);

  // Text printed at the end of this command's --help.
  void Footer(const std::string& text);
  // Runs after this command's arguments parsed without error.
  void Callback(std::function<void()> run);

 private:
  CLI::App* app_;
};

}  // namespace podbench::cli
