#include "tests/testing/chromium.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace podbench::testing {
namespace {

constexpr auto kTimeout = std::chrono::seconds(90);  // generous: the machine is shared

std::string FindBrowser() {
  if (const char* env = std::getenv("PODBENCH_CHROMIUM"); env != nullptr && *env != '\0') return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = dir + "/chromium";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace

std::string DecodeBase64(const std::string& text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char ch : text) {
    int v;
    if (ch >= 'A' && ch <= 'Z') v = ch - 'A';
    else if (ch >= 'a' && ch <= 'z') v = ch - 'a' + 26;
    else if (ch >= '0' && ch <= '9') v = ch - '0' + 52;
    else if (ch == '+') v = 62;
    else if (ch == '/') v = 63;
    else continue;  // '=' padding, line breaks
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::unique_ptr<HeadlessChromium> HeadlessChromium::Start(const std::filesystem::path& work_dir,
                                                          std::string* error) {
  const std::string browser = FindBrowser();
  if (browser.empty()) {
    *error = "chromium is not installed (no `chromium` on PATH and PODBENCH_CHROMIUM unset): run "
             "bash scripts/install-deps.sh";
    return nullptr;
  }
  if (access(browser.c_str(), X_OK) != 0) {
    *error = browser + " (PODBENCH_CHROMIUM) is not an executable: " + std::strerror(errno);
    return nullptr;
  }
  std::error_code ec;
  const std::filesystem::path profile = work_dir / "chromium-profile";
  std::filesystem::remove_all(profile, ec);
  std::filesystem::create_directories(profile, ec);
  if (ec) {
    *error = profile.string() + ": cannot create the profile folder: " + ec.message();
    return nullptr;
  }
  std::unique_ptr<HeadlessChromium> c(new HeadlessChromium());
  c->log_ = work_dir / "chromium.log";
  // Everything the child needs, made before fork (only async-signal-safe calls after it).
  std::vector<std::string> args = {browser,
                                   "--headless",
                                   "--no-sandbox",
                                   "--disable-gpu",
                                   "--disable-quic",
                                   "--no-first-run",
                                   "--disable-background-networking",
                                   "--disable-component-update",
                                   "--disable-sync",
                                   "--disable-extensions",
                                   "--hide-scrollbars",
                                   "--user-data-dir=" + profile.string(),
                                   "--remote-debugging-pipe",
                                   "about:blank"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log_path = c->log_.string();
  const std::string exec_failed = "podbench test: cannot execute " + browser + "\n";

  int to[2], from[2];
  if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) {
    *error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  signal(SIGPIPE, SIG_IGN);  // a browser that dies must give an error, not kill the test
  const pid_t pid = fork();
  if (pid < 0) {
    *error = std::string("fork: ") + std::strerror(errno);
    return nullptr;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Out of the way of 3 and 4 first, then onto them (dup2 clears close-on-exec).
    const int r = fcntl(to[0], F_DUPFD, 10), w = fcntl(from[1], F_DUPFD, 10);
    dup2(r, 3);
    dup2(w, 4);
    const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int null = open("/dev/null", O_RDONLY);
    if (log >= 0) {
      dup2(log, 1);
      dup2(log, 2);
    }
    if (null >= 0) dup2(null, 0);
    execv(argv[0], argv.data());
    if (write(2, exec_failed.data(), exec_failed.size()) < 0) _exit(126);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  c->pid_ = pid;
  c->to_browser_ = to[1];
  c->from_browser_ = from[0];

  auto target = c->Call("Target.createTarget", {{"url", "about:blank"}}, error, /*browser=*/true);
  if (!target) {
    *error = "chromium (" + browser + ") did not start: " + *error + "\n" + c->LogTail();
    return nullptr;
  }
  auto attached = c->Call("Target.attachToTarget",
                          {{"targetId", (*target)["targetId"]}, {"flatten", true}}, error, true);
  if (!attached) {
    *error = "attaching to the page: " + *error + "\n" + c->LogTail();
    return nullptr;
  }
  c->session_ = (*attached)["sessionId"].get<std::string>();
  if (!c->Call("Page.enable", nlohmann::json::object(), error)) return nullptr;
  return c;
}

HeadlessChromium::~HeadlessChromium() {
  if (pid_ <= 0) return;
  std::string ignored;
  Send({{"id", next_id_++}, {"method", "Browser.close"}}, &ignored);
  close(to_browser_);
  close(from_browser_);
  // Wait for the browser to exit without reaping it, so its process group
  // stays ours while whatever is left of it (renderers, helpers) is killed.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  kill(-pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
}

std::string HeadlessChromium::LogTail() const {
  std::ifstream in(log_);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string tail = "browser log " + log_.string() + ":";
  for (size_t i = lines.size() > 12 ? lines.size() - 12 : 0; i < lines.size(); ++i) tail += "\n  " + lines[i];
  return tail;
}

bool HeadlessChromium::Send(const nlohmann::json& message, std::string* error) {
  const std::string text = message.dump() + '\0';
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(to_browser_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = std::string("writing to the browser: ") + std::strerror(errno);
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<nlohmann::json> HeadlessChromium::Receive(std::chrono::steady_clock::time_point deadline,
                                                        std::string* error) {
  for (;;) {
    if (const size_t end = buffer_.find('\0'); end != std::string::npos) {
      auto j = nlohmann::json::parse(buffer_.substr(0, end), nullptr, false);
      buffer_.erase(0, end + 1);
      if (j.is_discarded()) {
        *error = "the browser sent a message that is not JSON";
        return std::nullopt;
      }
      return j;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      *error = "no answer from the browser within " + std::to_string(kTimeout.count()) + " s";
      return std::nullopt;
    }
    pollfd p{from_browser_, POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char chunk[65536];
    const ssize_t n = read(from_browser_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      *error = "the browser closed the DevTools pipe (it exited)";
      return std::nullopt;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::optional<nlohmann::json> HeadlessChromium::Call(const std::string& method, const nlohmann::json& params,
                                                     std::string* error, bool browser) {
  const int id = next_id_++;
  nlohmann::json message = {{"id", id}, {"method", method}, {"params", params}};
  if (!browser) message["sessionId"] = session_;
  if (!Send(message, error)) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + kTimeout;
  for (;;) {
    auto m = Receive(deadline, error);
    if (!m) {
      *error = method + ": " + *error;
      return std::nullopt;
    }
    if (!m->contains("id")) {
      events_.push_back(std::move(*m));
      continue;
    }
    if ((*m)["id"] != id) continue;
    if (m->contains("error")) {
      *error = method + ": " + (*m)["error"].dump();
      return std::nullopt;
    }
    return (*m)["result"];
  }
}

bool HeadlessChromium::WaitForEvent(const std::string& method, std::string* error) {
  const auto deadline = std::chrono::steady_clock::now() + kTimeout;
  for (;;) {
    while (!events_.empty()) {
      nlohmann::json e = std::move(events_.front());
      events_.pop_front();
      if (e.value("method", "") == method) return true;
    }
    auto m = Receive(deadline, error);
    if (!m) {
      *error = "waiting for " + method + ": " + *error;
      return false;
    }
    events_.push_back(std::move(*m));
  }
}

bool HeadlessChromium::Load(const std::string& url, int width, int height, std::string* error) {
  if (!Call("Emulation.setDeviceMetricsOverride",
            {{"width", width}, {"height", height}, {"deviceScaleFactor", 1}, {"mobile", false}}, error)) {
    return false;
  }
  events_.clear();
  auto nav = Call("Page.navigate", {{"url", url}}, error);
  if (!nav) return false;
  if (nav->contains("errorText")) {
    *error = "navigating to " + url + ": " + (*nav)["errorText"].get<std::string>();
    return false;
  }
  return WaitForEvent("Page.loadEventFired", error);
}

std::optional<nlohmann::json> HeadlessChromium::Evaluate(const std::string& expression, std::string* error) {
  auto r = Call("Runtime.evaluate", {{"expression", expression}, {"returnByValue", true}}, error);
  if (!r) return std::nullopt;
  if (r->contains("exceptionDetails")) {
    *error = "the page's script failed: " + (*r)["exceptionDetails"].dump();
    return std::nullopt;
  }
  return (*r)["result"].value("value", nlohmann::json());
}

std::optional<std::string> HeadlessChromium::ScreenshotPng(std::string* error) {
  auto metrics = Call("Page.getLayoutMetrics", nlohmann::json::object(), error);
  if (!metrics) return std::nullopt;
  const nlohmann::json size = metrics->contains("cssContentSize") ? (*metrics)["cssContentSize"]
                                                                   : (*metrics)["contentSize"];
  const double width = size.value("width", 800.0), height = std::min(size.value("height", 600.0), 16000.0);
  auto shot = Call("Page.captureScreenshot",
                   {{"format", "png"},
                    {"captureBeyondViewport", true},
                    {"clip", {{"x", 0}, {"y", 0}, {"width", width}, {"height", height}, {"scale", 1}}}},
                   error);
  if (!shot) return std::nullopt;
  return DecodeBase64((*shot)["data"].get<std::string>());
}

}  // namespace podbench::testing
