#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "outbox/util/lsn.hpp"

namespace outbox::replication {

// When a silent replication connection counts as lost. Silence alone cannot tell a dead peer
// from a busy one: a walsender replaying a table rewrite at its commit, or decoding changes it
// does not publish, neither writes nor reads for as long as that takes, and the next connection
// decodes the same transaction and is silent at the same place. So:
// - the limit is never below the server's wal_sender_timeout: a walsender decoding changes it
//   does not publish sends a keepalive every half of it;
// - before giving up, the client asks for a reply and waits for it, also after a long block of
//   its own: it is the peer's silence that counts;
// - a reconnect must not repeat the same way: each connection given up doubles the limit, until
//   the server answers after a silence longer than the configured limit and the stream gets past
//   the position where the first lost connection went silent (it was busy, and is through it),
//   or until a connection has been heard without a question for as long as the raised limit (the
//   stall is over: the next one is measured from the base again). A busy walsender that keeps
//   returning to the same silence still gets a longer limit each time, since the healthy stretch
//   needed grows with it.
// Network cuts are TCP's to see (keepalives and tcp_user_timeout on the socket); this catches a
// peer whose TCP still answers but which sends nothing (a stalled proxy). Pure: times are given.
class SilencePolicy {
public:
    using Clock = std::chrono::steady_clock;
    enum class Verdict { quiet, ask_for_reply, lost };

    // `configured` is postgres.receive.timeout.ms; 0 turns the limit off.
    explicit SilencePolicy(std::chrono::milliseconds configured) : configured_(configured) {}

    // A new connection to a server with this wal_sender_timeout (0: off).
    void connected(Clock::time_point now, std::chrono::milliseconds wal_sender_timeout);
    // The server sent something.
    void heard(Clock::time_point now);
    // The socket is left unread on purpose: the server's silence means nothing now.
    void not_listening(Clock::time_point now);
    // The client asked the server for a reply.
    void asked(Clock::time_point now);
    // What to do now, with everything up to `received` read; `lost` counts the connection as
    // given up.
    Verdict check(Clock::time_point now, Lsn received);
    // When check() has something to decide; none without a limit.
    std::optional<Clock::time_point> next_check() const;

    // How long the current connection may stay silent (0: no limit).
    std::chrono::milliseconds limit() const { return raised(doublings_); }
    // Why the connection was given up (after check() said so), for the log line.
    std::string describe_loss() const;

private:
    std::chrono::milliseconds base() const;
    std::chrono::milliseconds raised(int doublings) const;
    void recover_if_healthy(Clock::time_point now);

    std::chrono::milliseconds configured_;
    std::chrono::milliseconds wal_sender_timeout_{0};
    Clock::time_point last_heard_{};
    std::optional<Clock::time_point> asked_at_;  // since last_heard_
    std::optional<Clock::time_point> healthy_since_;  // heard without a question since then
    std::optional<Lsn> silent_at_;  // received position when the first of the lost connections went silent
    int doublings_ = 0;             // connections given up since the server last got through
    bool answered_late_ = false;    // on this connection, after a silence of at least the unraised limit
};

}  // namespace outbox::replication
