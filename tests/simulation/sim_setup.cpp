#include "sim_setup.hpp"

#include "invariants.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::simulation {

std::string events_between(const SimPostgres& server, Lsn from, Lsn to) {
    std::string found;
    int count = 0;
    for (const auto& item : server.wal()) {
        if (item.commit_lsn < from || item.commit_lsn >= to) continue;
        for (const auto& change : item.changes) {
            if (change.event < 0) continue;
            if (++count <= 3) found += (found.empty() ? "" : ", ") + std::string("event ") + std::to_string(change.event) +
                                       " at " + format_lsn(item.commit_lsn);
        }
    }
    if (count > 3) found += " and " + std::to_string(count - 3) + " more";
    return found;
}

std::optional<Lsn> SimSlots::look_up_slot() {
    if (!server_.slot_exists()) return std::nullopt;
    return server_.slot_confirmed();
}

replication::SlotPort::Creation SimSlots::create_slot() {
    if (hooks_.before_create) hooks_.before_create();
    if (!server_.create_slot()) {
        note("postgres: CREATE_REPLICATION_SLOT: already exists");
        return Creation::already_exists;
    }
    note("postgres: slot created at " + format_lsn(server_.slot_created_at()));
    if (roll(faults_.step_kill)) {
        note("fault: kill -9 right after the slot was created");
        throw Killed{};
    }
    return Creation::created;
}

void SimSlots::drop_slot() {
    if (hooks_.end_stream) hooks_.end_stream();
    if (roll(faults_.drop_fails)) {
        note("fault: the connection dropping the slot is lost");
        throw TransientError("sim: connection lost while dropping the replication slot");
    }
    if (!server_.slot_exists()) throw DefiniteError("sim: DROP_REPLICATION_SLOT: replication slot does not exist");
    if (server_.slot_active()) throw TransientError("sim: DROP_REPLICATION_SLOT: 55006 replication slot is active");
    // Only a slot the dropping attempt created is ever dropped, before anyone confirmed it; one
    // that was streamed from and confirmed may hold rows no one else has, now or at the next commit.
    if (server_.slot_advanced()) {
        const auto held = events_between(server_, server_.slot_confirmed(), server_.wal_end() + 1);
        throw Violation("a slot that was streamed from is dropped" +
                        (held.empty() ? std::string() : " while it holds unconfirmed committed rows (" + held + ")") +
                        "; confirmed " + format_lsn(server_.slot_confirmed()) + ", created at " +
                        format_lsn(server_.slot_created_at()));
    }
    server_.drop_slot();
    note("postgres: slot dropped");
}

void StartFaults::check_progress(const std::string& step) {
    if (!progress_) return;
    if (const auto marks = progress_(); marks != marks_) {
        marks_ = marks;
        marked_at_ = clock_.now();
        return;
    }
    if (clock_.now() - marked_at_ > std::chrono::seconds(5))
        throw Violation("no progress reported to /healthz for " +
                        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - marked_at_).count()) +
                        " ms while waiting on " + step + ": a liveness probe would kill the router");
}

void StartFaults::step(const std::string& step, const kafka::StopRequested* stop_requested) {
    if (!stop_) return;
    check_progress(step);
    const bool init = stop_requested == nullptr;
    if (init && clock_.now() < slow_until_) {
        clock_.advance(std::chrono::milliseconds(500));
        throw kafka::TransactionError(kafka::TransactionError::Kind::retriable, "kafka: init_transactions: timed out (sim)");
    }
    if (roll(faults_.step_kill)) {
        note("fault: kill -9 during " + step);
        throw Killed{};
    }
    if (roll(faults_.step_stop)) {
        note("fault: SIGTERM during " + step);
        stop_();
        if (init) throw kafka::TransactionError(kafka::TransactionError::Kind::retriable, "kafka: init_transactions: timed out (sim)");
        throw TransientError("kafka: stopped during " + step + " (sim)");
    }
    if (roll(faults_.step_fail)) {
        note("fault: " + step + " fails");
        if (init) throw kafka::TransactionError(kafka::TransactionError::Kind::abortable, "kafka: init_transactions failed (sim)");
        throw TransientError("kafka: " + step + " failed (sim)");
    }
    if (roll(faults_.step_slow)) {
        const auto length = std::chrono::milliseconds(500 + static_cast<long>(random_() % 40000));
        note("fault: " + step + " takes " + std::to_string(length.count()) + " ms");
        if (init) {
            slow_until_ = clock_.now() + length;
            clock_.advance(std::chrono::milliseconds(500));
            throw kafka::TransactionError(kafka::TransactionError::Kind::retriable, "kafka: init_transactions: timed out (sim)");
        }
        // The adapter's waits look at the stop request every 100 ms, and give up after 15 s.
        const auto until = clock_.now() + std::min<std::chrono::milliseconds>(length, std::chrono::seconds(15));
        while (clock_.now() < until) {
            clock_.advance(std::chrono::milliseconds(100));
            if ((*stop_requested)()) throw TransientError("kafka: stopped while waiting on " + step + " (sim)");
            check_progress(step);
        }
        if (length > std::chrono::seconds(15)) throw TransientError("kafka: no answer during " + step + " (sim)");
    }
}

}  // namespace outbox::simulation
