#include "outbox/ack/ack_tracker.hpp"

#include <algorithm>
#include <stdexcept>

namespace outbox::ack {

namespace {

constexpr std::size_t kInitialRing = 64;
// An emptied ring bigger than this (a burst of small transactions behind a slow one) is released.
constexpr std::size_t kKeptRing = 1 << 14;

}  // namespace

AckTracker::TxnId AckTracker::begin_transaction(const TxnInfo& info) {
    if (open_) throw std::logic_error("AckTracker: BEGIN while a transaction is open");
    if (pending_count_ == 0) first_id_ = next_id_;
    push_pending();
    pending(pending_count_ - 1) = {info};
    open_ = true;
    return next_id_++;
}

void AckTracker::push_pending() {
    if (pending_count_ == ring_.size()) {
        std::vector<Transaction> bigger(std::max(kInitialRing, ring_.size() * 2));
        for (std::size_t i = 0; i < pending_count_; ++i) bigger[i] = pending(i);
        ring_ = std::move(bigger);
        first_slot_ = 0;
    }
    ++pending_count_;
}

AckTracker::Transaction& AckTracker::find(TxnId txn) {
    if (txn < first_id_ || txn - first_id_ >= pending_count_)
        throw std::logic_error("AckTracker: unknown transaction id");
    return pending(txn - first_id_);
}

void AckTracker::event_sent(TxnId txn) {
    auto& t = find(txn);
    if (t.committed || t.abandoned) throw std::logic_error("AckTracker: event after COMMIT");
    ++t.undelivered;
    ++events_in_flight_;
}

void AckTracker::commit_transaction(TxnId txn, Lsn end_lsn) {
    auto& t = find(txn);
    if (!open_ || txn != next_id_ - 1) throw std::logic_error("AckTracker: COMMIT of a transaction that is not open");
    t.committed = true;
    t.end_lsn = end_lsn;
    open_ = false;
    advance();
}

void AckTracker::abandon_open_transaction() {
    if (!open_) return;
    pending(pending_count_ - 1).abandoned = true;
    open_ = false;
    advance();
}

AckTracker::TxnInfo AckTracker::event_delivered(TxnId txn) {
    auto& t = find(txn);
    if (t.undelivered == 0) throw std::logic_error("AckTracker: more deliveries than events");
    --t.undelivered;
    --events_in_flight_;
    const TxnInfo info = t.info;
    // Only the oldest transaction finishing can move the watermark.
    if (t.undelivered == 0 && txn == first_id_) advance();
    return info;
}

void AckTracker::keepalive(Lsn wal_end) {
    if (pending_count_ == 0) confirmed_ = std::max(confirmed_, wal_end);
}

void AckTracker::reset_confirmed(Lsn lsn) { confirmed_ = std::max(confirmed_, lsn); }

void AckTracker::discard_pending() {
    first_slot_ = 0;
    pending_count_ = 0;
    first_id_ = next_id_;
    open_ = false;
    events_in_flight_ = 0;
}

void AckTracker::restart_from(Lsn lsn) {
    discard_pending();
    confirmed_ = lsn;
}

const AckTracker::TxnInfo& AckTracker::info(TxnId txn) const {
    return const_cast<AckTracker*>(this)->find(txn).info;
}

void AckTracker::advance() {
    while (pending_count_ != 0) {
        const auto& front = pending(0);
        if (front.undelivered != 0 || !(front.committed || front.abandoned)) break;
        if (front.committed) {
            confirmed_ = std::max(confirmed_, front.end_lsn);
            ++transactions_confirmed_;
        }
        first_slot_ = (first_slot_ + 1) & (ring_.size() - 1);
        --pending_count_;
        ++first_id_;
    }
    if (pending_count_ == 0 && ring_.size() > kKeptRing) {
        ring_ = {};
        first_slot_ = 0;
    }
}

}  // namespace outbox::ack
