#pragma once

#include <atomic>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace outbox::test {

// Forwards TCP connections from a free loopback port to 127.0.0.1:`target_port` on a thread of
// its own. stall() stops forwarding without closing anything, as a cut network or a hung
// middlebox does: bytes stay where they are and new connections are accepted but never joined
// to the target. resume() forwards again (held connections are then joined).
class TcpProxy {
public:
    explicit TcpProxy(int target_port);
    ~TcpProxy();
    TcpProxy(const TcpProxy&) = delete;
    TcpProxy& operator=(const TcpProxy&) = delete;

    int port() const { return port_; }
    void stall() { stalled_ = true; }
    // Stalls, as stall(), when a client next sends bytes holding `text` (in one read), before
    // they are forwarded; resume() forwards them. For plain-TCP protocols (a statement's text).
    void stall_at(std::string text);
    void resume() { stalled_ = false; }

private:
    void run();
    bool holds_trigger(std::string_view chunk);

    int target_port_;
    int port_ = 0;
    int listener_ = -1;
    std::atomic<bool> stalled_{false};
    std::atomic<bool> stopping_{false};
    std::mutex trigger_mutex_;
    std::string trigger_;
    std::thread thread_;
};

}  // namespace outbox::test
