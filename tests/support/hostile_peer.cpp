#include "tests/support/hostile_peer.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/protocol/frame.h"
#include "tests/support/in_process_server.h"

namespace bb::testing {

namespace pr = protocol;

int ConnectLoopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return -1;
  }
  timeval timeout{10, 0};  // no read or blocking send in these tests waits longer
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  return fd;
}

bool SendAll(int fd, std::span<const uint8_t> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(static_cast<size_t>(n));
  }
  return true;
}

namespace {

// Reads until `buffer` holds `size` bytes; false at the end of the stream or on an error.
bool ReadUpTo(int fd, std::vector<uint8_t>& buffer, size_t size) {
  while (buffer.size() < size) {
    uint8_t chunk[16384];
    const ssize_t n = ::recv(fd, chunk, std::min(sizeof chunk, size - buffer.size()), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer.insert(buffer.end(), chunk, chunk + n);
  }
  return true;
}

}  // namespace

Result<pr::Frame> ReadFrame(int fd, std::vector<uint8_t>& buffer) {
  buffer.clear();
  if (!ReadUpTo(fd, buffer, pr::kFrameHeaderBytes)) {
    return Status::IoError("read: the end of the stream, an error or a timeout");
  }
  auto parsed = pr::ParseFrameHeader(buffer);
  if (parsed.state != pr::FrameHeaderParser::State::kGood) return parsed.status;
  if (!ReadUpTo(fd, buffer, pr::kFrameHeaderBytes + parsed.header.body_length)) {
    return Status::IoError("read body: the end of the stream, an error or a timeout");
  }
  return pr::DecodeFrame(buffer);
}

bool PeerClosed(int fd) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  uint8_t chunk[16384];
  while (std::chrono::steady_clock::now() < deadline) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) return true;
    if (n < 0 && errno != EINTR && errno != EAGAIN) return false;
  }
  return false;
}

std::vector<uint8_t> FrameOf(const pr::Message& message, uint64_t request_id) {
  std::vector<uint8_t> bytes;
  pr::Writer w(bytes);
  if (Status s = pr::EncodeFrame(message, request_id, w); !s.ok()) {
    throw std::runtime_error("FrameOf: " + s.message());
  }
  return bytes;
}

std::array<uint8_t, pr::kFrameHeaderBytes> HeaderOnly(pr::MessageType type, uint32_t body_length) {
  pr::FrameHeader h;
  h.type = type;
  h.request_id = 3;
  h.body_length = body_length;
  std::array<uint8_t, pr::kFrameHeaderBytes> bytes{};
  pr::WriteFrameHeader(h, bytes);
  return bytes;
}

Flood FloodWithoutReading(int fd, std::span<const uint8_t> frame, int64_t limit) {
  std::vector<uint8_t> chunk;
  while (chunk.size() < 64 * 1024) chunk.insert(chunk.end(), frame.begin(), frame.end());
  const int64_t before = ResidentBytes();
  Flood flood;
  const auto start = std::chrono::steady_clock::now();
  auto progress = start;
  auto sample = [&] {
    flood.resident_growth = std::max(flood.resident_growth, ResidentBytes() - before);
  };
  for (int64_t loops = 1; flood.sent < limit; ++loops) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start > std::chrono::seconds(30) || now - progress > std::chrono::seconds(2)) break;
    const size_t at = static_cast<size_t>(flood.sent % static_cast<int64_t>(chunk.size()));
    const ssize_t n = ::send(fd, chunk.data() + at, chunk.size() - at, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      flood.sent += n;
      progress = now;
    } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      sample();
    }
    if (loops % 64 == 0) sample();
  }
  sample();
  return flood;
}

Drained DrainFlood(int fd, std::span<const uint8_t> frame, const Flood& flood,
                   std::span<const uint8_t> request, uint64_t request_id) {
  const auto size = static_cast<int64_t>(frame.size());
  const int64_t partial = flood.sent % size;
  Drained drained;
  drained.frames = (flood.sent + size - 1) / size;
  std::jthread writer([&] {
    if (partial != 0) (void)SendAll(fd, frame.subspan(static_cast<size_t>(partial)));
    (void)SendAll(fd, request);
  });
  std::vector<uint8_t> buffer;
  for (;;) {
    auto reply = ReadFrame(fd, buffer);
    if (!reply.ok() || reply->header.request_id == request_id) {
      drained.reply = std::move(reply);
      return drained;
    }
    if (std::holds_alternative<pr::ErrorReply>(reply->message)) ++drained.errors;
  }
}

int64_t ResidentBytes() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;  // "... kB"
  }
  return -1;
}

double CpuSeconds(pid_t pid) {
  std::ifstream in(fmt::format("/proc/{}/stat", pid));
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // The fields after the command's closing parenthesis: state is the 3rd field, utime the 14th
  // and stime the 15th (proc(5)).
  std::istringstream fields(stat.substr(stat.rfind(')') + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) ticks += std::stod(field);
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

class CountingLog::Sink : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::atomic<int64_t> lines{0};
  std::string first;  // under the base sink's mutex

  std::string First() {
    std::lock_guard lock(mutex_);
    return first;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (lines++ < 10) {
      first.append(msg.payload.data(), msg.payload.size());
      first += '\n';
    }
  }
  void flush_() override {}
};

CountingLog::CountingLog() : sink_(std::make_shared<Sink>()), previous_(spdlog::default_logger()) {
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("counting", sink_));
}

CountingLog::~CountingLog() { spdlog::set_default_logger(previous_); }

int64_t CountingLog::lines() const { return sink_->lines.load(); }

std::string CountingLog::first_lines() const { return sink_->First(); }

ForkedServer::ForkedServer(std::function<int(const std::string& port_file)> serve, int max_files,
                           const std::string& log_path)
    : port_file_(log_path + ".port") {
  std::filesystem::remove(port_file_);
  pid_ = ::fork();
  if (pid_ == 0) {
    // The child: its own descriptor limit and log, then the server until SIGTERM.
    rlimit limit{static_cast<rlim_t>(max_files), static_cast<rlim_t>(max_files)};
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(3);
    try {
      spdlog::set_default_logger(spdlog::basic_logger_mt("child", log_path, true));
      spdlog::flush_on(spdlog::level::trace);
      const int code = serve(port_file_);
      spdlog::default_logger()->flush();
      ::_exit(code);
    } catch (...) {
      ::_exit(4);
    }
  }
  for (int i = 0; i < 1000 && pid_ > 0; ++i) {
    std::ifstream in(port_file_);
    int port = 0;
    if (in >> port && port > 0) {
      port_ = static_cast<uint16_t>(port);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

ForkedServer::~ForkedServer() {
  Stop();
  std::filesystem::remove(port_file_);
}

int ForkedServer::Stop() {
  if (pid_ <= 0) return -1;
  const pid_t pid = std::exchange(pid_, -1);
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 1500; ++i) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  return -1;
}

int64_t CountLines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  int64_t n = 0;
  while (std::getline(in, line)) ++n;
  return n;
}

// ---- The checks every server of the kit passes ------------------------------------------------

void ExpectRefusedHelloAnsweredThenClosed(const HostileTarget& target) {
  CountingLog log;
  std::vector<uint8_t> hellos;
  for (int i = 0; i < 5000; ++i) {
    hellos.insert(hellos.end(), target.refused_hello.begin(), target.refused_hello.end());
  }
  const int fd = ConnectLoopback(target.port);
  ASSERT_GE(fd, 0);
  (void)SendAll(fd, hellos);  // the server may close before it has taken them all
  std::vector<uint8_t> buffer;
  auto reply = ReadFrame(fd, buffer);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  ASSERT_TRUE(std::holds_alternative<pr::HelloReply>(reply->message));
  EXPECT_FALSE(std::get<pr::HelloReply>(reply->message).accepted);
  EXPECT_THAT(std::get<pr::HelloReply>(reply->message).reason,
              ::testing::HasSubstr(target.refusal));
  EXPECT_TRUE(PeerClosed(fd));
  ::close(fd);
  EXPECT_LE(log.lines(), 3) << log.first_lines();
  EXPECT_THAT(log.first_lines(), ::testing::HasSubstr("hello refused"));
}

void ExpectNeverReadingPeerIsNotRead(const HostileTarget& target) {
  CountingLog log;
  const int fd = ConnectLoopback(target.port);
  ASSERT_GE(fd, 0);
  std::vector<uint8_t> buffer;
  ASSERT_TRUE(SendAll(fd, target.hello));
  ASSERT_TRUE(ReadFrame(fd, buffer).ok());
  // The request's header with no body: a good header, a bad body, answered with an error each.
  const auto bad = HeaderOnly(target.request_type, 0);
  constexpr int64_t kLimit = 150 << 20;
  const Flood flood = FloodWithoutReading(fd, bad, kLimit);
  ASSERT_LT(flood.resident_growth, 64 << 20) << flood.sent << " bytes sent";
  EXPECT_LT(flood.sent, kLimit) << "the server read on while its replies piled up";
  // Reading resumes once the replies drain: every bad frame is answered, then a good one.
  const Drained drained = DrainFlood(fd, bad, flood, target.request, 99);
  ASSERT_TRUE(drained.reply.ok()) << drained.reply.status().message() << " after " << drained.errors
                                  << " errors";
  EXPECT_EQ(pr::TypeOf(drained.reply->message), target.reply_type);
  EXPECT_EQ(drained.errors, drained.frames);
  EXPECT_LE(log.lines(), 3) << log.first_lines();  // one warning for the connection
  ::close(fd);
}

namespace {

bool FileHas(const std::string& path, std::string_view text) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

void ExpectAcceptBacksOffOutOfDescriptors(std::function<int(const std::string& port_file)> serve,
                                          const std::string& log_path) {
  constexpr std::string_view kFailed = "accept failed: Too many open files";
  constexpr std::string_view kAgain = "accepting connections again";
  ForkedServer child(std::move(serve), 64, log_path);
  ASSERT_NE(child.port(), 0);
  std::vector<int> fds;
  for (int i = 0; i < 100; ++i) {
    const int fd = ConnectLoopback(child.port());  // the backlog takes the rest
    ASSERT_GE(fd, 0) << "connection " << i;
    fds.push_back(fd);
  }
  // The child's log is flushed at every line: accept has failed once it says so.
  EXPECT_TRUE(WaitUntil([&] { return FileHas(log_path, kFailed); }));
  const double cpu_before = CpuSeconds(child.pid());
  std::this_thread::sleep_for(std::chrono::seconds(5));  // the window the CPU is measured over
  const double cpu = CpuSeconds(child.pid()) - cpu_before;
  EXPECT_LT(cpu, 0.5) << "seconds of CPU in 5 s";
  for (int fd : fds) ::close(fd);  // descriptors come back: the backlog is accepted, and ends
  EXPECT_TRUE(WaitUntil([&] { return FileHas(log_path, kAgain); }));
  EXPECT_EQ(child.Stop(), 0);
  std::ifstream in(log_path);
  std::string line, text;
  int lines = 0, failed = 0, again = 0;
  while (std::getline(in, line)) {
    ++lines;
    if (line.find(kFailed) != std::string::npos) ++failed;
    if (line.find(kAgain) != std::string::npos) ++again;
    if (lines <= 20) text += line + "\n";
  }
  EXPECT_LT(lines, 100) << text;
  EXPECT_EQ(failed, 1) << text;
  EXPECT_EQ(again, 1) << text;
}

}  // namespace bb::testing
