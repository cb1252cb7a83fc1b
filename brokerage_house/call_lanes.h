// CallLanes: the Dispatcher's lanes for server-side frames, with no worker threads. Each
// transaction is one call of a server-side function, a single round trip with nothing for the
// Brokerage House to do between its statements, so the I/O thread that read the request sends
// the call itself and reads the answer when it comes: no hand-off to a worker and back, no
// thread woken per request (on a 2-core machine those wake-ups cost more than the call).
//
// A lane is one database session in non-blocking mode (db::Session::StartCall, Progress);
// Asio watches a busy lane's socket. A free lane takes the next queued job as soon as it is
// queued (JobsQueued) and again whenever its call ends. A lane whose session breaks follows the
// Dispatcher's reconnect rule: a thread of its own runs Dispatcher::Reconnect, and the lane
// comes back on the I/O thread.
//
// Ownership: owned by the Dispatcher; owns its sessions and reconnecting threads. Thread-safety:
// everything on the I/O thread except Stop (the Dispatcher's stopping thread) and the
// reconnecting threads, which touch only their own lane's session until they post back.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "brokerage_house/dispatcher.h"
#include "brokerage_house/frame_runner.h"

namespace bb::bh {

class CallLanes : public Lanes {
 public:
  // Opens dispatcher.lanes() sessions with the server-side statements prepared (the functions
  // must be installed: InstallFrameFunctions); fails fast when the database refuses.
  static Result<std::unique_ptr<Lanes>> Start(Dispatcher& dispatcher, const std::string& conninfo,
                                              FrameOptions options);
  ~CallLanes() override;

  void JobsQueued() override;
  void Stop() override;

 private:
  struct Lane;
  CallLanes(Dispatcher& dispatcher, FrameOptions options);
  // Runs `job` on the free lane, and the queued jobs after it while their calls end at once.
  void Begin(Lane& lane, Job&& job);
  void Watch(Lane& lane);
  void OnReady(Lane& lane);
  // The lane's call ended: takes its next job, if any.
  void Next(Lane& lane);
  void Broken(Lane& lane);
  void Reconnected(Lane& lane);

  Dispatcher& dispatcher_;
  FrameOptions options_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  Completion done_;             // the completion being finished, reused
  std::vector<uint8_t> frame_;  // the encoded reply, reused
};

// A LanesFactory for Server: installs nothing (see InstallFrameFunctions), opens the sessions.
LanesFactory MakeCallLanes(std::string conninfo, FrameOptions options);

}  // namespace bb::bh
