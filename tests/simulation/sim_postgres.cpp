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

const WalItem& SimPostgres::commit(WalItem item) {
    std::uniform_int_distribution<Lsn> gap(24, 400);
    item.commit_time_us = clock_.millis() * 1000;
    if (item.transaction) {
        item.xid = next_xid_++;
        for (auto& change : item.changes) change.lsn = (wal_end_ += gap(random_));
        item.commit_lsn = (wal_end_ += gap(random_));
        item.end_lsn = (wal_end_ += 48);
    } else {
        item.commit_lsn = (wal_end_ += gap(random_));
        item.changes.front().lsn = item.commit_lsn;
        item.end_lsn = (wal_end_ += 56);
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
    // Decoding restarts behind the slot's position; transactions committing before it are skipped.
    std::size_t first = 0;
    while (first < wal_.size() && wal_[first].commit_lsn < slot_confirmed_) ++first;
    auto stream = std::make_unique<SimWalStream>(*this, first, ++connections_);
    active_ = stream.get();
    return stream;
}

SimWalStream::SimWalStream(SimPostgres& server, std::size_t first_item, int connection)
    : server_(server), next_item_(first_item), connection_(connection) {}

SimWalStream::~SimWalStream() {
    if (server_.active_ == this) server_.active_ = nullptr;
}

void SimWalStream::queue_relation(std::uint32_t relid) {
    if (!relations_sent_.insert(relid).second) return;
    const auto* r = server_.relation(relid);
    std::vector<WireColumn> columns;
    for (const auto& [name, oid] : r->columns) columns.push_back({name, oid});
    send(xlog_data(0, sent_end_, server_.clock_.millis() * 1000, relation_message(relid, r->schema, r->table, columns)),
         "RELATION " + r->table);
}

void SimWalStream::send(std::string frame, std::string what) {
    socket_.push_back(std::move(frame));
    described_.push_back(std::move(what));
}

void SimWalStream::queue_item(const WalItem& item) {
    const auto now_us = server_.clock_.millis() * 1000;
    sent_end_ = std::max(sent_end_, item.end_lsn);
    if (!item.transaction) {
        const auto& m = item.changes.front();
        send(xlog_data(m.lsn, sent_end_, now_us, logical_message(false, m.lsn, m.prefix, m.content)),
             "MESSAGE (non-transactional) event " + std::to_string(m.event) + " at " + format_lsn(m.lsn));
        return;
    }
    send(xlog_data(item.commit_lsn, sent_end_, now_us, begin_message(item.commit_lsn, item.commit_time_us, item.xid)),
         "BEGIN " + format_lsn(item.commit_lsn));
    for (const auto& change : item.changes) {
        if (change.kind == Change::Kind::message) {
            send(xlog_data(change.lsn, sent_end_, now_us, logical_message(true, change.lsn, change.prefix, change.content)),
                 "MESSAGE event " + std::to_string(change.event));
            continue;
        }
        queue_relation(change.relid);
        send(xlog_data(change.lsn, sent_end_, now_us, insert_message(change.relid, change.values)),
             "INSERT " + (change.event >= 0 ? "event " + std::to_string(change.event) : std::string("(not an outbox)")));
    }
    send(xlog_data(item.end_lsn, sent_end_, now_us, commit_message(item.commit_lsn, item.end_lsn, item.commit_time_us)),
         "COMMIT " + format_lsn(item.commit_lsn) + " end " + format_lsn(item.end_lsn));
}

void SimWalStream::pump(int budget) {
    if (cut_after_ == 0 || silent || finished_ || server_.clock_.now() < server_.silent_until) return;
    while (budget > 0 && socket_.size() < 10000) {
        if (next_item_ < server_.wal_.size()) {
            const std::size_t before = socket_.size();
            queue_item(server_.wal_[next_item_++]);
            budget -= static_cast<int>(socket_.size() - before);
            continue;
        }
        // Idle: a keepalive with the WAL end, sometimes asking for a reply.
        if (socket_.empty() && (std::exchange(reply_due_, false) || sent_end_ < server_.wal_end_ || server_.random_() % 8 == 0)) {
            sent_end_ = server_.wal_end_;
            send(keepalive(sent_end_, server_.clock_.millis() * 1000, server_.random_() % 4 == 0), "keepalive " + format_lsn(sent_end_));
        }
        break;
    }
}

std::optional<std::span<const char>> SimWalStream::next_frame() {
    if (cut_after_ == 0) throw TransientError("sim: replication connection lost");
    if (socket_.empty()) return std::nullopt;
    current_ = std::move(socket_.front());
    socket_.pop_front();
    if (server_.trace_.echo) server_.trace_.at(server_.clock_.millis(), "  connection " + std::to_string(connection_) + " reads " + described_.front());
    described_.pop_front();
    if (cut_after_ > 0 && --cut_after_ == 0 && server_.active_ == this) server_.active_ = nullptr;
    return std::span<const char>(current_.data(), current_.size());
}

void SimWalStream::send_status_update(Lsn, Lsn flushed, bool reply_requested) {
    if (cut_after_ == 0) throw TransientError("sim: cannot send status update: connection lost");
    if (reply_requested) reply_due_ = true;
    if (server_.on_confirm) server_.on_confirm(flushed);
    server_.slot_confirmed_ = std::max(server_.slot_confirmed_, flushed);
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

void SimWalStream::finish() { finished_ = true; }

}  // namespace outbox::simulation
