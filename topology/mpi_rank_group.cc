#include "topology/mpi_rank_group.h"

#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "topology/mpi_functional.h"

namespace podbench::topology {
namespace {

// Set by the signal handler: the signal number that asked this rank to stop.
std::atomic<int> g_stop{0};
bool g_started = false;

// What the handler may use without allocating: rank 0's view of its peers
// on this host (pid and description), fixed at start-up.
struct Peer {
  pid_t pid = 0;  // 0 = on another host
  char text[160] = {};
};
Peer* g_peers = nullptr;
int g_num_peers = 0;
int g_rank = -1;

void WriteAll(const char* s) {
  size_t n = std::strlen(s);
  while (n > 0) {
    const ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// True when `pid` has ended (gone, or a zombie nobody reaped yet). Only
// async-signal-safe calls.
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0 && errno == ESRCH) return true;
  char path[64] = "/proc/";
  char digits[24];
  int n = 0;
  for (long v = pid; v > 0 && n < 20; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
  size_t len = std::strlen(path);
  while (n > 0) path[len++] = digits[--n];
  std::strcpy(path + len, "/stat");
  const int fd = open(path, O_RDONLY);
  if (fd < 0) return true;
  char buf[256];
  const ssize_t r = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (r <= 0) return true;
  buf[r] = '\0';
  const char* paren = std::strrchr(buf, ')');  // "pid (comm) S ..."
  return paren != nullptr && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

void OnStopSignal(int sig) {
  const bool first = g_stop.exchange(sig) == 0;
  if (!first || g_rank != 0) return;
  // Rank 0 speaks for the job: which ranks on this host are gone.
  WriteAll("podbench: rank 0: the MPI launcher is stopping the job");
  bool named = false;
  for (int i = 0; i < g_num_peers; ++i) {
    if (g_peers[i].pid != 0 && Gone(g_peers[i].pid)) {
      WriteAll(named ? ", " : ": ");
      WriteAll(g_peers[i].text);
      WriteAll(" has died");
      named = true;
    }
  }
  if (!named) WriteAll(" (a rank on another host died, or the job was interrupted)");
  WriteAll("\n");
}

std::string HostName() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "unknown";
}

class MpiGroup : public RankGroup {
 public:
  MpiGroup(MPI_Comm comm, const MpiGroupOptions& o) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    // Rank 0 times out first, so it is the one that reports.
    wait_.timeout_s = rank_ == 0 || o.timeout_s == 0 ? o.timeout_s : o.timeout_s + std::max(5.0, o.timeout_s / 2);
    wait_.stop = &g_stop;
    wait_.bytes_sent = &bytes_;
    wait_.describe = [this](int r) { return Describe(r); };
    ParseFault();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  uint64_t bytes_sent() const override { return bytes_.load(); }

  Status Run(const Schedule& schedule, CoreBuffers& buffers, int /*threads*/) override {
    InjectFault();
    return RunFunctionalMpi(schedule, buffers, comm_, wait_);
  }

  Result<std::vector<std::string>> AllGather(std::string_view mine) override {
    InjectFault();
    // Point to point (sizes, then payloads) so every wait polls and names
    // the rank it waits for.
    std::vector<uint64_t> sizes(static_cast<size_t>(size_));
    const uint64_t my_size = mine.size();
    sizes[static_cast<size_t>(rank_)] = my_size;
    std::vector<MPI_Request> reqs;
    std::vector<int> peer;
    for (int p = 0; p < size_; ++p) {
      if (p == rank_) continue;
      reqs.emplace_back();
      peer.push_back(p);
      MPI_Irecv(&sizes[static_cast<size_t>(p)], 1, MPI_UINT64_T, p, kSizeTag, comm_, &reqs.back());
      reqs.emplace_back();
      peer.push_back(-1);
      MPI_Isend(&my_size, 1, MPI_UINT64_T, p, kSizeTag, comm_, &reqs.back());
    }
    PODBENCH_RETURN_IF_ERROR(MpiWaitAll(reqs, peer, wait_, comm_, "all-gather"));
    std::vector<std::string> all(static_cast<size_t>(size_));
    all[static_cast<size_t>(rank_)] = std::string(mine);
    reqs.clear();
    peer.clear();
    for (int p = 0; p < size_; ++p) {
      if (p == rank_) continue;
      all[static_cast<size_t>(p)].resize(sizes[static_cast<size_t>(p)]);
      if (sizes[static_cast<size_t>(p)] > 0) {
        reqs.emplace_back();
        peer.push_back(p);
        MPI_Irecv(all[static_cast<size_t>(p)].data(), static_cast<int>(sizes[static_cast<size_t>(p)]), MPI_BYTE, p,
                  kDataTag, comm_, &reqs.back());
      }
      if (my_size > 0) {
        reqs.emplace_back();
        peer.push_back(-1);
        bytes_ += my_size;
        MPI_Isend(mine.data(), static_cast<int>(my_size), MPI_BYTE, p, kDataTag, comm_, &reqs.back());
      }
    }
    PODBENCH_RETURN_IF_ERROR(MpiWaitAll(reqs, peer, wait_, comm_, "all-gather"));
    return all;
  }

  // Exchanges "host pid" with every rank; rank 0 keeps its same-host peers'
  // pids for the signal handler.
  Status Introduce() {
    const std::string me = HostName() + " " + std::to_string(getpid());
    PODBENCH_ASSIGN_OR_RETURN(std::vector<std::string> all, AllGather(me));
    for (int r = 0; r < size_; ++r) {
      const std::string& s = all[static_cast<size_t>(r)];
      const size_t space = s.rfind(' ');
      hosts_.push_back(s.substr(0, space));
      pids_.push_back(std::atol(s.c_str() + space + 1));
    }
    static std::vector<Peer> peers;
    peers.assign(static_cast<size_t>(size_), Peer{});
    for (int r = 0; r < size_; ++r) {
      Peer& p = peers[static_cast<size_t>(r)];
      if (r != rank_ && hosts_[static_cast<size_t>(r)] == hosts_[static_cast<size_t>(rank_)]) {
        p.pid = static_cast<pid_t>(pids_[static_cast<size_t>(r)]);
      }
      std::snprintf(p.text, sizeof p.text, "%s", Describe(r).c_str());
    }
    g_peers = peers.data();
    g_num_peers = size_;
    return Status::Ok();
  }

 private:
  static constexpr int kSizeTag = 1, kDataTag = 2;

  std::string Describe(int r) const {
    std::string s = "rank " + std::to_string(r);
    if (static_cast<size_t>(r) < pids_.size()) {
      s += " (pid " + std::to_string(pids_[static_cast<size_t>(r)]) + " on " + hosts_[static_cast<size_t>(r)] + ")";
    }
    return s;
  }

  // Test hook (tests/e2e/mpi/mpi_fault_test.sh): PODBENCH_MPI_FAULT=
  // "kill:RANK:CALL" makes rank RANK kill itself with SIGKILL,
  // "hang:RANK:CALL" makes it stop answering, at its CALL-th call of Run or
  // AllGather (1-based, start-up exchanges included).
  void ParseFault() {
    const char* f = std::getenv("PODBENCH_MPI_FAULT");
    if (f == nullptr) return;
    char kind[8] = {};
    int r = -1;
    long call = 0;
    if (std::sscanf(f, "%7[a-z]:%d:%ld", kind, &r, &call) == 3 && r == rank_) {
      fault_kind_ = kind;
      fault_call_ = call;
    }
  }
  void InjectFault() {
    if (fault_call_ <= 0 || ++calls_ != fault_call_) return;
    if (fault_kind_ == "kill") raise(SIGKILL);
    if (fault_kind_ == "hang") {
      for (;;) pause();
    }
  }

  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  MpiWaitOptions wait_;
  std::atomic<uint64_t> bytes_{0};
  std::vector<std::string> hosts_;
  std::vector<long> pids_;
  std::string fault_kind_;
  long fault_call_ = 0, calls_ = 0;
};

}  // namespace

Result<std::shared_ptr<RankGroup>> StartMpi(const MpiGroupOptions& options) {
  if (g_started) return Status::FailedPrecondition("MPI: started twice");
  if (options.timeout_s < 0) return Status::InvalidArgument("--rank-timeout must be >= 0 seconds");
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
    return Status::FailedPrecondition("MPI: MPI_Init_thread failed");
  }
  g_started = true;
  if (provided < MPI_THREAD_SERIALIZED) {
    return Status::FailedPrecondition(
        "MPI: the library provides thread level " + std::to_string(provided) +
        ", podbench needs MPI_THREAD_SERIALIZED (its emulated cores' threads take turns calling MPI)");
  }
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &g_rank);
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  auto group = std::make_shared<MpiGroup>(comm, options);
  PODBENCH_RETURN_IF_ERROR(group->Introduce());
  return std::shared_ptr<RankGroup>(group);
}

void FinishMpi() {
  if (!g_started) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void AbortMpi(int exit_code) {
  if (!g_started) return;
  MPI_Abort(MPI_COMM_WORLD, exit_code);
}

}  // namespace podbench::topology
