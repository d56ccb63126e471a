// The CLI11 side of harness/cli/options.h: each call is the CLI11 call of the
// same meaning, on the same value type, so parsing, help and errors are CLI11's.
#include "harness/cli/options.h"

#include <utility>

#include <CLI/CLI.hpp>

namespace podbench::cli {

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
  option_->check(CLI::NonNegativeNumber);
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
  return Option(app_->add_option(name, into, help));
}

Option Command::Add(const std::string& name, double& into, const std::string& help) {
  return Option(app_->add_option(name, into, help));
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
  return Option(app_->add_option_function<uint64_t>(name, std::move(set), help));
}

Option Command::AddFlag(const std::string& name, bool& into, const std::string& help) {
  return Option(app_->add_flag(name, into, help));
}

void Command::Footer(const std::string& text) { app_->footer(text); }

void Command::Callback(std::function<void()> run) { app_->callback(std::move(run)); }

}  // namespace podbench::cli
