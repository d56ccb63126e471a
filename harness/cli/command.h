// The `podbench` command line: one file per subcommand, each adding itself to
// the application through harness/cli/options.h (CLI11 stays behind it). A
// subcommand parses its flags into an options struct, then its callback runs it
// and stores the process exit code in the CliContext.
//
// Exit codes shared by every subcommand:
//   0 success, 1 a negative verdict (a failing log, a regression), 2 usage or
//   I/O error, 3 the subcommand is not available in this build yet.
#pragma once

#include <iosfwd>
#include <string>

#include "harness/cli/options.h"

namespace podbench::cli {

enum ExitCode : int {
  kExitOk = 0,
  kExitVerdict = 1,
  kExitUsage = 2,
  kExitUnavailable = 3,
};

// Where every subcommand writes and reports its exit code.
struct CliContext {
  std::ostream& out;
  std::ostream& err;
  int exit_code = kExitOk;
};

// The result formats: `--format text|json` for every subcommand that prints results.
// With json, standard output is exactly one JSON document (what else the
// subcommand says, progress, notes and warnings, goes to standard error).
enum class OutputFormat { kText, kJson, kCsv };

// Adds `--format` to `sub` and returns it. `allow_csv` adds csv to the accepted
// values. `json_lines` non-null adds jsonl (JSON Lines: one JSON document a
// line, for tools that stream), which sets *format to kJson and *json_lines to
// true. Any other value is a parse error listing the accepted ones.
Option AddFormatOption(Command sub, OutputFormat* format, bool allow_csv = false, bool* json_lines = nullptr);

// One per subcommand (harness/cli/cmd_<name>.cc).
void AddReproduceCommand(Command app, CliContext& ctx);
void AddRunCommand(Command app, CliContext& ctx);
void AddScalingCommand(Command app, CliContext& ctx);
void AddCheckCommand(Command app, CliContext& ctx);
void AddScoreCommand(Command app, CliContext& ctx);
void AddRcpCommand(Command app, CliContext& ctx);
void AddSummarizeCommand(Command app, CliContext& ctx);
void AddRunsCommand(Command app, CliContext& ctx);
void AddShowCommand(Command app, CliContext& ctx);
void AddCompareCommand(Command app, CliContext& ctx);
void AddBenchCommand(Command app, CliContext& ctx);
void AddTopologyCommand(Command app, CliContext& ctx);
void AddReportCommand(Command app, CliContext& ctx);
void AddCalibrateCommand(Command app, CliContext& ctx);
void AddModelCommand(Command app, CliContext& ctx);
void AddPackageCommand(Command app, CliContext& ctx);
void AddSysdescCommand(Command app, CliContext& ctx);
void AddRepoCommand(Command app, CliContext& ctx);

// The whole program: builds the app, parses argv, runs the subcommand and
// returns the exit code. The command boundary: no exception leaves it. A
// parse error is kExitUsage with CLI11's message; any other exception (a bug
// or an input no check foresaw) is kExitUsage with a message naming the
// subcommand, what went wrong and the command line that caused it.
int Main(int argc, char** argv, std::ostream& out, std::ostream& err);

}  // namespace podbench::cli
