#include "sim_postgres.hpp"

#include <algorithm>
#include <utility>

#include "outbox/util/errors.hpp"
#include "wire_writer.hpp"

namespace outbox::simulation {

SimPostgres::SimPostgres(SimClock& clock, std::mt19937_64& random, Trace& trace)
    : clock_(clock), random_(random), trace_(trace) {}

const SimRelation* SimPostgres::relation(std::uint32_t relid) const {
    for (const auto& r : relations)
        if (r.relid == relid) return &r;
    return nullptr;
}

namespace {

constexpr Lsn kAlign = 8;  // MAXALIGN: every WAL record starts on it

}  // namespace

const WalItem& SimPostgres::commit(WalItem item) {
    // Records between the published ones (other tables, checkpoints, ...), in aligned units.
    std::uniform_int_distribution<Lsn> gap(3, 50);
    item.commit_time_us = clock_.millis() * 1000;
    // Written while the previous transaction was still open: the commit record (or the message)
    // comes right at the previous record's end, and the transaction's changes lie before it.
    const bool interleaved = !wal_.empty() && random_() % 4 == 0;
    const Lsn amid_from = wal_.empty() ? wal_end_ : wal_.back().first_lsn;
    if (item.transaction) {
        item.xid = next_xid_++;
        if (interleaved) {
            std::vector<Lsn> at;
            for (std::size_t i = 0; i < item.changes.size(); ++i)
                at.push_back(amid_from + kAlign * (random_() % std::max<Lsn>(1, (wal_end_ - amid_from) / kAlign)));
            std::sort(at.begin(), at.end());
            for (std::size_t i = 0; i < at.size(); ++i) item.changes[i].lsn = at[i];
            item.commit_lsn = wal_end_;
        } else {
            for (auto& change : item.changes) change.lsn = (wal_end_ += kAlign * gap(random_));
            item.commit_lsn = (wal_end_ += kAlign * gap(random_));
        }
        item.first_lsn = item.changes.empty() ? item.commit_lsn : item.changes.front().lsn;
        // A commit record: 32 bytes and more with subtransactions or invalidations.
        item.end_lsn = (wal_end_ += kAlign * (4 + random_() % 8));
    } else {
        // A non-transactional message: skipped on a restart by where its record starts, sent
        // with where it ends (decode.c queues it at the record's endptr).
        item.commit_lsn = interleaved ? wal_end_ : (wal_end_ += kAlign * gap(random_));
        item.end_lsn = (wal_end_ += kAlign * 7);
        item.first_lsn = item.end_lsn;
        item.changes.front().lsn = item.end_lsn;
    }
    wal_.push_back(std::move(item));
    return wal_.back();
}

bool SimPostgres::create_slot() {
    if (slot_exists_) return false;
    slot_exists_ = true;
    slot_confirmed_ = slot_created_at_ = wal_end_;
    return true;
}

bool SimPostgres::drop_slot() {
    if (!slot_exists_ || active_) return false;
    slot_exists_ = false;
    return true;
}

std::unique_ptr<SimWalStream> SimPostgres::start_replication() {
    if (!slot_exists_) throw DefiniteError("sim: START_REPLICATION: replication slot does not exist");
    if (active_) return nullptr;
    // Decoding restarts behind the slot's position; transactions (and non-transactional
    // messages) whose record starts before it are skipped (SnapBuildXactNeedsSkip), one starting
    // exactly there is sent again.
    std::size_t first = 0;
    while (first < wal_.size() && wal_[first].commit_lsn < slot_confirmed_) ++first;
    sent_ends_.insert(slot_confirmed_);
    auto stream = std::make_unique<SimWalStream>(*this, first, ++connections_);
    active_ = stream.get();
    return stream;
}

SimWalStream::SimWalStream(SimPostgres& server, std::size_t first_item, int connection)
    : server_(server), next_item_(first_item), connection_(connection), sent_end_(server.slot_confirmed_) {}

SimWalStream::~SimWalStream() {
    if (server_.active_ == this) server_.active_ = nullptr;
}

void SimWalStream::queue_relation(std::uint32_t relid) {
    if (!relations_sent_.insert(relid).second) return;
    const auto* r = server_.relation(relid);
    std::vector<WireColumn> columns;
    for (const auto& [name, oid] : r->columns) columns.push_back({name, oid});
    // Written with last_write false: the walsender puts no position in its header.
    send(xlog_data(0, 0, server_.clock_.millis() * 1000, relation_message(relid, r->schema, r->table, columns)),
         "RELATION " + r->table);
}

void SimWalStream::send(std::string frame, std::string what, long completes) {
    socket_.push_back({std::move(frame), std::move(what), completes});
}

void SimWalStream::queue_keepalive(Lsn wal_end, bool reply_requested) {
    sent_end_ = std::max(sent_end_, wal_end);
    server_.sent_ends_.insert(sent_end_);
    send(keepalive(sent_end_, server_.clock_.millis() * 1000, reply_requested), "keepalive " + format_lsn(sent_end_));
}

// Each header carries the message's own position, as WalSndPrepareWrite writes it:
// ctx->write_location, which is BEGIN's first change, a change's own LSN, COMMIT's end.
void SimWalStream::queue_item(std::size_t index) {
    const WalItem& item = server_.wal_[index];
    const auto now_us = server_.clock_.millis() * 1000;
    const long completes = static_cast<long>(index);
    sent_end_ = std::max(sent_end_, item.end_lsn);
    if (!item.transaction) {
        const auto& m = item.changes.front();
        server_.sent_ends_.insert(m.lsn);
        send(xlog_data(m.lsn, m.lsn, now_us, logical_message(false, m.lsn, m.prefix, m.content)),
             "MESSAGE (non-transactional) event " + std::to_string(m.event) + " at " + format_lsn(item.commit_lsn) + " end " +
                 format_lsn(m.lsn), completes);
        return;
    }
    send(xlog_data(item.first_lsn, item.first_lsn, now_us, begin_message(item.commit_lsn, item.commit_time_us, item.xid)),
         "BEGIN " + format_lsn(item.commit_lsn));
    for (const auto& change : item.changes) {
        if (change.kind == Change::Kind::message) {
            send(xlog_data(change.lsn, change.lsn, now_us, logical_message(true, change.lsn, change.prefix, change.content)),
                 "MESSAGE event " + std::to_string(change.event));
            continue;
        }
        queue_relation(change.relid);
        send(xlog_data(change.lsn, change.lsn, now_us, insert_message(change.relid, change.values)),
             "INSERT " + (change.event >= 0 ? "event " + std::to_string(change.event) : std::string("(not an outbox)")));
    }
    server_.sent_ends_.insert(item.end_lsn);
    send(xlog_data(item.end_lsn, item.end_lsn, now_us, commit_message(item.commit_lsn, item.end_lsn, item.commit_time_us)),
         "COMMIT " + format_lsn(item.commit_lsn) + " end " + format_lsn(item.end_lsn), completes);
}

void SimWalStream::pump(int budget) {
    if (cut_after_ == 0 || silent || finished_ || server_.clock_.now() < server_.silent_until) return;
    auto& random = server_.random_;
    while (budget > 0 && socket_.size() < 10000) {
        if (next_item_ < server_.wal_.size()) {
            // Between transactions too (wal_sender_timeout / 2 without a reply, or after
            // skipping transactions): the WAL end is how far the walsender has read, which may
            // reach the next commit record's start, never past it (that transaction is sent
            // first).
            if (random() % 16 == 0) {
                const Lsn next = server_.wal_[next_item_].commit_lsn;
                const Lsn at = random() % 2 == 0 || next <= sent_end_ ? next : sent_end_ + random() % (next - sent_end_);
                queue_keepalive(std::max(sent_end_, at), random() % 4 == 0);
                --budget;
            }
            const std::size_t before = socket_.size();
            queue_item(next_item_++);
            budget -= static_cast<int>(socket_.size() - before);
            continue;
        }
        // Idle: a keepalive with the WAL end, sometimes asking for a reply.
        if (socket_.empty() && (std::exchange(reply_due_, false) || sent_end_ < server_.wal_end_ || random() % 8 == 0))
            queue_keepalive(server_.wal_end_, random() % 4 == 0);
        break;
    }
}

std::optional<std::span<const char>> SimWalStream::next_frame() {
    if (cut_after_ == 0) throw TransientError("sim: replication connection lost");
    if (socket_.empty()) return std::nullopt;
    Frame frame = std::move(socket_.front());
    socket_.pop_front();
    current_ = std::move(frame.bytes);
    if (frame.completes >= 0) items_read_.push_back(static_cast<std::size_t>(frame.completes));
    if (server_.trace_.echo) server_.trace_.at(server_.clock_.millis(), "  connection " + std::to_string(connection_) + " reads " + frame.what);
    if (cut_after_ > 0 && --cut_after_ == 0 && server_.active_ == this) server_.active_ = nullptr;
    return std::span<const char>(current_.data(), current_.size());
}

void SimWalStream::send_status_update(Lsn, Lsn flushed, bool reply_requested) {
    if (cut_after_ == 0) throw TransientError("sim: cannot send status update: connection lost");
    if (reply_requested) reply_due_ = true;
    if (server_.on_confirm) server_.on_confirm(flushed);
    server_.slot_confirmed_ = std::max(server_.slot_confirmed_, flushed);
    if (server_.on_status_update) server_.on_status_update(*this);
}

void SimWalStream::flush_output() {
    if (cut_after_ == 0) throw TransientError("sim: cannot write to the replication connection");
}

void SimWalStream::check_connected() const {
    if (cut_after_ == 0) throw TransientError("sim: replication connection lost: the server closed it");
}

void SimWalStream::cut_after(int frames) {
    cut_after_ = frames;
    // The walsender is gone: the slot is free for the next connection.
    if (frames == 0 && server_.active_ == this) server_.active_ = nullptr;
}

void SimWalStream::finish() {
    finished_ = true;
    if (server_.on_finish) server_.on_finish(*this);
}

}  // namespace outbox::simulation
