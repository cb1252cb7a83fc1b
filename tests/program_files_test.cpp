// The files the programs write as they run, met as a user meets them: each test starts a real
// program binary (no database, loopback, system-chosen ports) and looks at its files and its
// exit.
//  * --log-file: a warning is in the file at once and any line within a second, even when the
//    program is then killed (SIGKILL: nothing flushes at exit);
//  * --port-file that cannot be written: the program stops at once, naming the file and the
//    reason, instead of leaving the controller waiting for a port;
//  * a mix log on a full disk: the customer or market emulator stops within 5 s, naming the
//    file and the reason.
#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "tests/support/child_process.h"
#include "tests/support/in_process_server.h"

namespace bb {
namespace {

namespace fs = std::filesystem;
using testing::ChildProcess;
using ::testing::HasSubstr;
using Clock = std::chrono::steady_clock;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of `text` that contain every one of `parts`.
std::vector<std::string> LinesWith(const std::string& text, std::vector<std::string> parts) {
  std::vector<std::string> found;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    bool all = true;
    for (const auto& p : parts) all = all && line.find(p) != std::string::npos;
    if (all) found.push_back(line);
  }
  return found;
}

// Waits up to 10 s for `child` to write its port file; 0 if it did not (or exited).
uint16_t WaitForPort(const std::string& path, ChildProcess& child) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(path);
    int port = 0;
    if (in >> port && port > 0) return static_cast<uint16_t>(port);
    if (child.Wait(std::chrono::milliseconds(10))) return 0;
  }
  return 0;
}

// Connects to 127.0.0.1:`port`, sends bytes that are no frame and waits (up to 5 s) for the
// server to close the connection. Returns the local port, by which the server names us in its
// warning, or 0.
uint16_t SendGarbage(uint16_t port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return 0;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{.tv_sec = 5, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  uint16_t local = 0;
  std::array<char, 64> garbage;
  garbage.fill('\xff');
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      send(fd, garbage.data(), garbage.size(), MSG_NOSIGNAL) ==
          static_cast<ssize_t>(garbage.size())) {
    std::array<char, 4096> reply;
    ssize_t n;
    while ((n = recv(fd, reply.data(), reply.size(), 0)) > 0) {
    }
    // 0: closed (an error reply may come first); ECONNRESET: closed with our bytes unread.
    if (n == 0 || errno == ECONNRESET) {
      sockaddr_in mine{};
      socklen_t size = sizeof mine;
      if (getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &size) == 0) {
        local = ntohs(mine.sin_port);
      }
    }
  }
  close(fd);
  return local;
}

// A fresh directory per test.
class ProgramFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name =
        fmt::format("bb-program-files.{}.{}.{}", getpid(), test->test_suite_name(), test->name());
    std::replace(name.begin(), name.end(), '/', '_');  // parameterised names have one
    dir_ = fs::temp_directory_path() / name;
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(std::string_view name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

// A server program and its arguments (given our directory) to listen on a system-chosen
// loopback port with no database, no Brokerage House and no periodic summary line.
struct Server {
  std::string name;
  std::vector<std::string> (*command)(const std::string& dir);
};

std::vector<std::string> BrokerageHouse(const std::string&) {
  return {BB_BH, "--no-db", "--listen", "127.0.0.1:0", "--summary-seconds", "0"};
}

// The Brokerage House's port is read from a file that never appears: the delivery connections
// wait quietly.
std::vector<std::string> MarketEmulator(const std::string& dir) {
  return {BB_MEE,
          "--listen",
          "127.0.0.1:0",
          "--bh-port-file",
          dir + "/no-bh.port",
          "--out",
          dir,
          "--summary-seconds",
          "0"};
}

std::vector<std::string> EchoServer(const std::string&) {
  return {BB_NETBENCH, "echo-server", "--listen", "127.0.0.1:0"};
}

void PrintTo(const Server& server, std::ostream* out) { *out << server.name; }

const Server kBrokerageHouse{"BrokerageHouse", &BrokerageHouse};
const Server kMarketEmulator{"MarketEmulator", &MarketEmulator};
const Server kEchoServer{"NetbenchEchoServer", &EchoServer};

class ServerFiles : public ProgramFiles, public ::testing::WithParamInterface<Server> {
 protected:
  std::vector<std::string> Command(std::vector<std::string> more) const {
    auto command = GetParam().command(dir_.string());
    command.insert(command.end(), more.begin(), more.end());
    return command;
  }
};

// ---- --log-file (the Brokerage House and the market emulator have one) ----

class LogFile : public ServerFiles {
 protected:
  // Starts the program with --port-file and --log-file; its port once it listens, or 0.
  uint16_t Start() {
    auto child =
        ChildProcess::Start(Command({"--port-file", Path("port"), "--log-file", log()}), output());
    EXPECT_TRUE(child.ok()) << child.status().message();
    if (!child.ok()) return 0;
    child_ = std::move(child).value();
    const uint16_t port = WaitForPort(Path("port"), *child_);
    EXPECT_NE(port, 0) << ReadFile(output());
    return port;
  }
  // Kills the program (SIGKILL: nothing flushes at exit) and returns its log file.
  std::string KillAndReadLog() {
    child_->Signal(SIGKILL);
    EXPECT_EQ(child_->Wait(std::chrono::seconds(5)), 128 + SIGKILL);
    return ReadFile(log());
  }

  std::string log() const { return Path("program.log"); }
  std::string output() const { return Path("output"); }
  std::unique_ptr<ChildProcess> child_;
};

TEST_P(LogFile, AWarningIsInTheFileAtOnceThoughTheProgramIsKilled) {
  const uint16_t port = Start();
  ASSERT_NE(port, 0);
  // A bad frame: the server warns, naming us, then closes the connection.
  const uint16_t us = SendGarbage(port);
  ASSERT_NE(us, 0) << "the server did not close the connection after a bad frame";
  const std::string text = KillAndReadLog();
  const std::string peer = fmt::format("127.0.0.1:{}", us);
  EXPECT_THAT(LinesWith(ReadFile(output()), {" warning: ", peer}), ::testing::SizeIs(1))
      << "no warning on stderr naming " << peer;
  EXPECT_THAT(LinesWith(text, {" warning: ", peer}), ::testing::SizeIs(1))
      << "the log file has no warning naming " << peer << ":\n"
      << text;
}

TEST_P(LogFile, AnInfoLineIsInTheFileWithinASecond) {
  const uint16_t port = Start();
  ASSERT_NE(port, 0);
  // Logged about when the port file is written; the file is flushed once a second.
  const std::string address = fmt::format("127.0.0.1:{}", port);
  testing::WaitUntil(
      [&] {
        return !LinesWith(ReadFile(log()), {" info: ", "listening", address}).empty();
      },
      std::chrono::milliseconds(2500));
  const std::string text = KillAndReadLog();
  EXPECT_THAT(LinesWith(text, {" info: ", "listening", address}), ::testing::SizeIs(1))
      << "no 'listening' line in the log file 2.5 s after the port file:\n"
      << text;
  // No warning flushed it.
  EXPECT_THAT(LinesWith(text, {" warning: "}), ::testing::IsEmpty()) << text;
}

INSTANTIATE_TEST_SUITE_P(Programs, LogFile, ::testing::Values(kBrokerageHouse, kMarketEmulator),
                         [](const auto& info) { return info.param.name; });

// ---- --port-file (every server has one) ----

using PortFile = ServerFiles;

// The program exits 1 within 5 s, naming the file and the system's reason.
void ExpectStopsOnPortFile(const std::vector<std::string>& command, const std::string& output,
                           const std::string& message) {
  auto child = ChildProcess::Start(command, output);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ((*child)->Wait(std::chrono::seconds(5)), 1) << ReadFile(output);
  EXPECT_THAT(ReadFile(output), HasSubstr(message));
}

TEST_P(PortFile, InADirectoryThatDoesNotExistStopsTheProgram) {
  const std::string file = Path("no-such-dir/server.port");
  ExpectStopsOnPortFile(Command({"--port-file", file}), Path("output"),
                        fmt::format("--port-file '{}': No such file or directory", file));
}

TEST_P(PortFile, OnAFullDiskStopsTheProgram) {
  ExpectStopsOnPortFile(Command({"--port-file", "/dev/full"}), Path("output"),
                        "--port-file '/dev/full': No space left on device");
}

INSTANTIATE_TEST_SUITE_P(Programs, PortFile,
                         ::testing::Values(kBrokerageHouse, kMarketEmulator, kEchoServer),
                         [](const auto& info) { return info.param.name; });

// ---- a mix log on a full disk ----

// The run-time path: opening /dev/full works, writing to it does not; the writer's flush
// (every 100 ms) finds out, and the emulator stops.
void ExpectStopsWithin5s(ChildProcess& child, const std::string& output,
                         const std::string& message) {
  const auto started = Clock::now();
  const auto exit = child.Wait(std::chrono::seconds(5));
  EXPECT_EQ(exit, 1) << "not stopped 5 s after its start:\n" << ReadFile(output);
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(5));
  EXPECT_THAT(ReadFile(output), HasSubstr(message));
}

TEST_F(ProgramFiles, ACustomerEmulatorWhoseMixLogCannotBeWrittenStops) {
  auto bh = ChildProcess::Start({BB_BH, "--no-db", "--listen", "127.0.0.1:0", "--port-file",
                                 Path("bh.port"), "--summary-seconds", "0"},
                                Path("bh.output"));
  ASSERT_TRUE(bh.ok()) << bh.status().message();
  const uint16_t port = WaitForPort(Path("bh.port"), **bh);
  ASSERT_NE(port, 0) << ReadFile(Path("bh.output"));
  auto ce = ChildProcess::Start({BB_CE, "--bh", fmt::format("127.0.0.1:{}", port), "--users", "2",
                                 "--duration", "60s", "--mix-log", "/dev/full"},
                                Path("ce.output"));
  ASSERT_TRUE(ce.ok()) << ce.status().message();
  ExpectStopsWithin5s(**ce, Path("ce.output"), "mix log '/dev/full': No space left on device");
}

TEST_F(ProgramFiles, AMarketEmulatorWhoseMixLogCannotBeWrittenStops) {
  fs::create_symlink("/dev/full", dir_ / "mix-mee.csv");
  auto mee = ChildProcess::Start({BB_MEE, "--listen", "127.0.0.1:0", "--bh-port-file",
                                  Path("no-bh.port"), "--out", dir_.string()},
                                 Path("mee.output"));
  ASSERT_TRUE(mee.ok()) << mee.status().message();
  ExpectStopsWithin5s(**mee, Path("mee.output"),
                      fmt::format("mix log '{}': No space left on device", Path("mix-mee.csv")));
}

}  // namespace
}  // namespace bb
