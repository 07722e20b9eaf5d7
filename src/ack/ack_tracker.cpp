#include "outbox/ack/ack_tracker.hpp"

#include <algorithm>
#include <stdexcept>

namespace outbox::ack {

AckTracker::TxnId AckTracker::begin_transaction(const TxnInfo& info) {
    if (open_) throw std::logic_error("AckTracker: BEGIN while a transaction is open");
    if (pending_.empty()) first_id_ = next_id_;
    pending_.push_back({});
    pending_.back().info = info;
    open_ = true;
    return next_id_++;
}

AckTracker::Transaction& AckTracker::find(TxnId txn) {
    if (txn < first_id_ || txn - first_id_ >= pending_.size())
        throw std::logic_error("AckTracker: unknown transaction id");
    return pending_[txn - first_id_];
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
    pending_.back().abandoned = true;
    open_ = false;
    advance();
}

void AckTracker::event_delivered(TxnId txn) {
    auto& t = find(txn);
    if (t.undelivered == 0) throw std::logic_error("AckTracker: more deliveries than events");
    --t.undelivered;
    --events_in_flight_;
    advance();
}

void AckTracker::keepalive(Lsn wal_end) {
    if (pending_.empty()) confirmed_ = std::max(confirmed_, wal_end);
}

void AckTracker::reset_confirmed(Lsn lsn) { confirmed_ = std::max(confirmed_, lsn); }

void AckTracker::discard_pending() {
    pending_.clear();
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
    while (!pending_.empty()) {
        const auto& front = pending_.front();
        if (front.undelivered != 0 || !(front.committed || front.abandoned)) break;
        if (front.committed) {
            confirmed_ = std::max(confirmed_, front.end_lsn);
            ++transactions_confirmed_;
        }
        pending_.pop_front();
        ++first_id_;
    }
}

}  // namespace outbox::ack
