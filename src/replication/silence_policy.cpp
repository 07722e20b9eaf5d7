#include "outbox/replication/silence_policy.hpp"

#include <algorithm>

namespace outbox::replication {
namespace {

// 64 times the limit (an hour at PostgreSQL's default wal_sender_timeout) outlasts any replay
// worth waiting for, and still ends a connection that stalled for good.
constexpr int kMostDoublings = 6;

std::string milliseconds(std::chrono::milliseconds duration) { return std::to_string(duration.count()) + " ms"; }

}  // namespace

std::chrono::milliseconds SilencePolicy::base() const {
    if (configured_.count() <= 0) return configured_;
    return std::max(configured_, wal_sender_timeout_);
}

std::chrono::milliseconds SilencePolicy::raised(int doublings) const {
    return base() * (1L << std::clamp(doublings, 0, kMostDoublings));
}

void SilencePolicy::connected(Clock::time_point now, std::chrono::milliseconds wal_sender_timeout) {
    wal_sender_timeout_ = wal_sender_timeout;
    answered_late_ = false;
    healthy_since_.reset();
    not_listening(now);
}

void SilencePolicy::heard(Clock::time_point now) {
    if (base().count() > 0 && now - last_heard_ >= base()) answered_late_ = true;
    // The stretch of hearing regularly starts again after anything that would have asked.
    if (!healthy_since_ || now - last_heard_ >= base() / 2) healthy_since_ = now;
    recover_if_healthy(now);
    last_heard_ = now;
    asked_at_.reset();
}

// Healthy again: heard regularly, without a question, for as long as the raised limit.
void SilencePolicy::recover_if_healthy(Clock::time_point now) {
    if (!silent_at_ || !healthy_since_ || now - *healthy_since_ < limit()) return;
    silent_at_.reset();
    doublings_ = 0;
}

// Unread on purpose: no silence, and no sign of health either.
void SilencePolicy::not_listening(Clock::time_point now) {
    healthy_since_.reset();
    last_heard_ = now;
    asked_at_.reset();
}

void SilencePolicy::asked(Clock::time_point now) {
    if (!asked_at_) asked_at_ = now;
    healthy_since_.reset();
}

// The question goes out at half the unraised limit: a server that is not busy answers it long
// before the limit, so only a busy one is heard after a silence that long.
std::optional<SilencePolicy::Clock::time_point> SilencePolicy::next_check() const {
    if (base().count() <= 0) return std::nullopt;
    if (!asked_at_) return last_heard_ + base() / 2;
    return std::max(*asked_at_ + base() / 2, last_heard_ + limit());
}

SilencePolicy::Verdict SilencePolicy::check(Clock::time_point now, Lsn received) {
    // Through the busy place: the server answered after a long silence, and the stream is past
    // where the first lost connection went silent. Either alone is not enough: a walsender may
    // be slow to start, and a new connection may get a little further before the same silence.
    if (silent_at_ && answered_late_ && received > *silent_at_) {
        silent_at_.reset();
        doublings_ = 0;
    }
    recover_if_healthy(now);
    const auto due = next_check();
    if (!due || now < *due) return Verdict::quiet;
    if (!asked_at_) return Verdict::ask_for_reply;
    if (!silent_at_) silent_at_ = received;
    doublings_ = std::min(doublings_ + 1, kMostDoublings);
    return Verdict::lost;
}

std::string SilencePolicy::describe_loss() const {
    const auto had = raised(doublings_ - 1);
    std::string text = "nothing received from the server for " + milliseconds(had) + " (postgres.receive.timeout.ms " +
                       milliseconds(configured_);
    if (wal_sender_timeout_ > configured_) text += ", raised to the server's wal_sender_timeout";
    if (had > base()) text += ", doubled after each connection lost to silence";
    return text + "), not even after asking for a reply; taking the connection for lost. The next connection may stay "
                  "silent for " + milliseconds(limit()) +
                  " (a busy server is silent at the same place again: a table rewrite is replayed at its commit "
                  "without a word)";
}

}  // namespace outbox::replication
