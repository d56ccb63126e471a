// A real headless Chromium for tests, driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4, each a
// JSON message ended by a NUL byte). No network: the flags turn off every
// background connection, which this machine's closed network would refuse.
//
// The browser is $PODBENCH_CHROMIUM, else `chromium` on PATH (Debian's
// package, installed by scripts/install-deps.sh). It runs in its own process
// group with a new, empty profile folder, and is closed (then killed, with
// its group, if it does not exit) when the object goes away.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <deque>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace podbench::testing {

class HeadlessChromium {
 public:
  // Starts the browser and opens one page (a tab) in it. nullptr, with the
  // reason in *error (including the end of the browser's own output), when
  // it cannot be found, started, or attached to. `work_dir` receives the
  // profile folder and the browser's log.
  static std::unique_ptr<HeadlessChromium> Start(const std::filesystem::path& work_dir, std::string* error);
  ~HeadlessChromium();
  HeadlessChromium(const HeadlessChromium&) = delete;
  HeadlessChromium& operator=(const HeadlessChromium&) = delete;

  // A DevTools command to the page (or, with `browser`, to the browser
  // itself); the reply's "result", or nullopt with the reason in *error.
  std::optional<nlohmann::json> Call(const std::string& method, const nlohmann::json& params,
                                     std::string* error, bool browser = false);

  // Sets the viewport (CSS pixels), navigates to `url` and waits for its
  // load event. False with *error on failure.
  bool Load(const std::string& url, int width, int height, std::string* error);
  // Evaluates `expression` in the page and returns its value (it must be
  // JSON-serialisable).
  std::optional<nlohmann::json> Evaluate(const std::string& expression, std::string* error);
  // A PNG screenshot of the whole page (beyond the viewport), as bytes.
  std::optional<std::string> ScreenshotPng(std::string* error);

  // The last lines of the browser's stderr, for messages.
  std::string LogTail() const;

 private:
  HeadlessChromium() = default;
  bool Send(const nlohmann::json& message, std::string* error);
  // The next message from the browser, waiting until `deadline`.
  std::optional<nlohmann::json> Receive(std::chrono::steady_clock::time_point deadline, std::string* error);
  bool WaitForEvent(const std::string& method, std::string* error);

  pid_t pid_ = -1;
  int to_browser_ = -1, from_browser_ = -1;
  int next_id_ = 1;
  std::string session_;
  std::string buffer_;
  std::deque<nlohmann::json> events_;  // received while waiting for a reply
  std::filesystem::path log_;
};

// Bytes of base64 `text` (the DevTools protocol's binary encoding).
std::string DecodeBase64(const std::string& text);

}  // namespace podbench::testing
