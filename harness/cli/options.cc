// The CLI11 side of harness/cli/options.h: each call is the CLI11 call of the
// same meaning, on the same value type, so parsing, help and errors are CLI11's.
#include "harness/cli/options.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <utility>

#include <CLI/CLI.hpp>

namespace podbench::cli {
namespace {

// A floating-point value must be a finite number: CLI11 converts "nan" and
// "inf", and its range checks compare, so NaN would pass every bound.
const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      double v = 0;
      if (CLI::detail::lexical_cast(text, v) && !std::isfinite(v)) return "Value " + text + " is not a finite number";
      return {};
    },
    "FINITE");

// CLI11's NonNegativeNumber names its bound as DBL_MAX written out in full.
const CLI::Validator kNonNegative(
    [](std::string& text) -> std::string {
      double v = 0;
      if (!CLI::detail::lexical_cast(text, v)) return "Value " + text + " is not a number";
      if (!std::isfinite(v)) return "Value " + text + " is not a finite number";
      if (v < 0) return "Value " + text + " is negative (it must be >= 0)";
      return {};
    },
    "NONNEGATIVE");

// An unsigned option takes decimal digits that fit in 64 bits: the C
// conversion CLI11 uses reads "-1" as 2^64 - 1 and clamps what overflows.
const CLI::Validator kUnsigned(
    [](std::string& text) -> std::string {
      uint64_t v = 0;
      const char* end = text.data() + text.size();
      const auto [ptr, ec] = std::from_chars(text.data(), end, v);
      if (text.empty() || ec == std::errc::invalid_argument || ptr != end) {
        return "Value " + text + " is not a whole number >= 0";
      }
      if (ec == std::errc::result_out_of_range) return "Value " + text + " does not fit in 64 bits";
      return {};
    },
    "UINT");

// A comma-separated list of names: none of them empty ("", "a,,b", "a,").
const CLI::Validator kNameList(
    [](std::string& text) -> std::string {
      size_t start = 0;
      for (;;) {
        const size_t comma = text.find(',', start);
        const size_t end = comma == std::string::npos ? text.size() : comma;
        if (end == start) return "'" + text + "' has an empty name (give comma-separated names)";
        if (comma == std::string::npos) return {};
        start = comma + 1;
      }
    },
    "LIST");

}  // namespace

Option Option::Required() {
  option_->required();
  return *this;
}

Option Option::Choices(const std::vector<std::string>& names) {
  option_->check(CLI::IsMember(names));
  return *this;
}

Option Option::Range(int min, int max) {
  option_->check(CLI::Range(min, max));
  return *this;
}

Option Option::Range(double min, double max) {
  option_->check(CLI::Range(min, max));
  return *this;
}

Option Option::NonNegative() {
  option_->check(kNonNegative);
  return *this;
}

Option Option::NameList() {
  option_->check(kNameList);
  return *this;
}

Option Option::Excludes(const Option& other) {
  option_->excludes(other.option_);
  return *this;
}

Option Option::Hidden() {
  option_->group("");
  return *this;
}

std::size_t Option::Count() const { return option_->count(); }

Command Command::AddSubcommand(const std::string& name, const std::string& description) {
  return Command(app_->add_subcommand(name, description));
}

Option Command::Add(const std::string& name, std::string& into, const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

Option Command::Add(const std::string& name, int& into, const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

Option Command::Add(const std::string& name, uint64_t& into, const std::string& help) {
  return Option(app_->add_option(name, into, help)->check(kUnsigned));
}

Option Command::Add(const std::string& name, double& into, const std::string& help) {
  return Option(app_->add_option(name, into, help)->check(kFinite));
}

Option Command::Add(const std::string& name, std::vector<std::string>& into, const std::string& help) {
  return Option(app_->add_option(name, into, help));
}

Option Command::Add(const std::string& name, std::optional<int>& into, const std::string& help) {
  return Option(app_->add_option_function<int>(name, [&into](const int& v) { into = v; }, help));
}

Option Command::AddFunction(const std::string& name, std::function<void(const std::string&)> set,
                            const std::string& help) {
  return Option(app_->add_option_function<std::string>(name, std::move(set), help));
}

Option Command::AddFunction(const std::string& name, std::function<void(uint64_t)> set,
                            const std::string& help) {
  return Option(app_->add_option_function<uint64_t>(name, std::move(set), help)->check(kUnsigned));
}

Option Command::AddFlag(const std::string& name, bool& into, const std::string& help) {
  return Option(app_->add_flag(name, into, help));
}

void Command::Footer(const std::string& text) { app_->footer(text); }

void Command::Callback(std::function<void()> run) { app_->callback(std::move(run)); }

}  // namespace podbench::cli
