#include <algorithm>
#include <exception>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/text.h"
#include "base/utf8.h"
#include "base/version.h"
#include "harness/cli/command.h"

namespace podbench::cli {

Option AddFormatOption(Command sub, OutputFormat* format, bool allow_csv, bool* json_lines) {
  std::vector<std::string> names{"text", "json"};
  if (allow_csv) names.emplace_back("csv");
  if (json_lines != nullptr) names.emplace_back("jsonl");
  std::string help = "Output format: ";
  for (size_t i = 0; i < names.size(); ++i) {
    help += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  }
  help += " (default: text)";
  if (json_lines != nullptr) help += "; jsonl: JSON Lines, one document a line";
  return sub
      .AddFunction(
          "--format",
          [format, json_lines](const std::string& name) {
            *format = name == "json" || name == "jsonl" ? OutputFormat::kJson
                      : name == "csv"                   ? OutputFormat::kCsv
                                                        : OutputFormat::kText;
            if (json_lines != nullptr) *json_lines = name == "jsonl";
          },
          help)
      .Choices(names);
}

namespace {

// Builds the whole app: the root flags, then every subcommand.
void BuildApp(CLI::App& app, CliContext& ctx) {
  app.description(
      "podbench: MLPerf Training v0.6 on an emulated TPU-v3 pod, and MLPerf log compliance.");
  app.set_version_flag("--version",
                       std::string("podbench ") + Version() + " (git " + GitHash() + ")");
  app.require_subcommand(1);
  app.fallthrough(false);
  Command root(&app);
  AddReproduceCommand(root, ctx);
  AddRunCommand(root, ctx);
  AddScalingCommand(root, ctx);
  AddCheckCommand(root, ctx);
  AddScoreCommand(root, ctx);
  AddRcpCommand(root, ctx);
  AddSummarizeCommand(root, ctx);
  AddRunsCommand(root, ctx);
  AddShowCommand(root, ctx);
  AddCompareCommand(root, ctx);
  AddBenchCommand(root, ctx);
  AddTopologyCommand(root, ctx);
  AddReportCommand(root, ctx);
  AddCalibrateCommand(root, ctx);
  AddModelCommand(root, ctx);
  AddPackageCommand(root, ctx);
  AddSysdescCommand(root, ctx);
  AddRepoCommand(root, ctx);
}

// The arguments as a user could retype them, each quoted (bytes that are not
// printable UTF-8 as \xHH).
std::string CommandLine(int argc, char** argv) {
  std::string line = "podbench";
  for (int i = 1; i < argc; ++i) line += " " + QuoteForMessage(argv[i]);
  return line;
}

// "bench, calibrate, check, ...": every subcommand's name, in alphabetical order.
std::string KnownSubcommands(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  std::sort(names.begin(), names.end());
  return JoinNames(names);
}

// The first argument that is not a flag: what the user meant as the
// subcommand. Null when every argument is a flag.
const char* FirstWord(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i][0] != '-') return argv[i];
  }
  return nullptr;
}

// "podbench run" when a subcommand was parsed, else "podbench".
std::string Who(const CLI::App& app) {
  std::string who = "podbench";
  for (const CLI::App* sub : app.get_subcommands()) who += " " + sub->get_name();
  return who;
}

}  // namespace

int Main(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app;
  CliContext ctx{out, err};
  try {
    BuildApp(app, ctx);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // No subcommand: name the word that is not one, or say one is needed,
    // and list them (CLI11 says only "A subcommand is required").
    const bool help_or_version = e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success);
    if (!help_or_version && app.get_subcommands().empty()) {
      const char* word = FirstWord(argc, argv);
      if (word != nullptr) {
        err << "podbench: unknown subcommand " << QuoteForMessage(word) << "; known: " << KnownSubcommands(app)
            << " (podbench --help says what each does)\n";
        return kExitUsage;
      }
      if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr) {
        err << "podbench: a subcommand is required; known: " << KnownSubcommands(app)
            << " (podbench --help says what each does)\n";
        return kExitUsage;
      }
    }
    int rc = app.exit(e, out, err);
    // CLI11 returns 0 for --help/--version; any real parse error is a usage error.
    return rc == 0 ? kExitOk : kExitUsage;
  } catch (const std::bad_alloc&) {
    out.flush();
    err << Who(app) << ": error: out of memory while running " << CommandLine(argc, argv) << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    out.flush();
    err << Who(app) << ": error: " << QuoteForMessage(e.what()) << " while running "
        << CommandLine(argc, argv) << "\n";
    return kExitUsage;
  } catch (...) {
    out.flush();
    err << Who(app) << ": error: unknown exception while running " << CommandLine(argc, argv) << "\n";
    return kExitUsage;
  }
  // What the command printed must have reached its reader: a full disk or a
  // closed pipe is a failure, not a silent success.
  if (!out.flush()) {
    err << Who(app) << ": error: writing the standard output failed (a full disk or a closed pipe?)\n";
    return kExitUsage;
  }
  return ctx.exit_code;
}

}  // namespace podbench::cli
