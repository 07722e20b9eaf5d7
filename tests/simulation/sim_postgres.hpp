#pragma once

// A simulated PostgreSQL primary with one logical slot and the walsender that streams it as
// pgoutput: transactions in commit order from the slot's confirmed position (so earlier,
// unconfirmed transactions come again after a reconnect, and one whose commit record starts
// right at that position comes again too), RELATION before a relation's first change on each
// connection, logical messages (transactional and not), keepalives carrying the WAL end (which
// runs ahead of the published changes, between transactions as well as when idle), and the
// faults the schedule injects: a connection cut before any message, silence.
//
// The WAL is laid out as PostgreSQL writes it: records 8-byte aligned; a transaction whose
// changes were written while the previous one was still open has its commit record right at the
// previous record's end, its changes before it. Frame headers carry what the walsender puts
// there: a message's own position in both dataStart and walEnd (BEGIN its first change's, COMMIT
// the transaction's end), and 0 for RELATION.

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "outbox/replication/wal_stream.hpp"
#include "sim_clock.hpp"
#include "trace.hpp"

namespace outbox::simulation {

// One change inside a transaction, or a non-transactional message on its own.
struct Change {
    enum class Kind { outbox_row, other_row, message } kind = Kind::outbox_row;
    std::uint32_t relid = 0;  // rows
    Lsn lsn = 0;
    std::vector<std::optional<std::string>> values;  // rows
    std::string prefix;                              // messages
    std::string content;                             // messages
    int event = -1;                                  // index into the workload's events, -1: none
};

struct WalItem {
    bool transaction = true;  // false: a non-transactional logical message
    Lsn commit_lsn = 0;       // a message: where its record starts
    Lsn end_lsn = 0;          // a message: where it ends, its position in the stream
    Lsn first_lsn = 0;        // of its first change (BEGIN's header)
    std::uint32_t xid = 0;
    std::int64_t commit_time_us = 0;
    std::vector<Change> changes;
};

struct SimRelation {
    std::uint32_t relid;
    std::string schema;
    std::string table;
    std::vector<std::pair<std::string, std::uint32_t>> columns;
};

class SimPostgres;

class SimWalStream final : public replication::WalStream {
public:
    SimWalStream(SimPostgres& server, std::size_t first_item, int connection);
    ~SimWalStream() override;

    std::optional<std::span<const char>> next_frame() override;
    void send_status_update(Lsn written, Lsn flushed, bool reply_requested) override;
    void flush_output() override;
    void check_connected() const override;
    void finish() override;

    // The walsender sends what it has (up to `budget` frames) into the socket.
    void pump(int budget);
    // Faults: the connection breaks after `frames` more frames are read (0: now).
    void cut_after(int frames);
    bool cut() const { return cut_after_ == 0; }
    bool silent = false;  // the walsender sends nothing (busy decoding, or the network is gone)
    int connection() const { return connection_; }
    // The WAL items whose last frame (COMMIT, or a non-transactional message) the router read on
    // this connection, in order.
    const std::vector<std::size_t>& items_read() const { return items_read_; }

private:
    struct Frame {
        std::string bytes;
        std::string what;        // for a replay's trace
        long completes = -1;     // the WAL item this frame ends
    };
    void queue_item(std::size_t index);
    void queue_relation(std::uint32_t relid);
    void queue_keepalive(Lsn wal_end, bool reply_requested);
    void send(std::string frame, std::string what, long completes = -1);

    SimPostgres& server_;
    std::size_t next_item_;
    int connection_;
    std::set<std::uint32_t> relations_sent_;
    std::deque<Frame> socket_;  // frames sent, not yet read
    std::vector<std::size_t> items_read_;
    std::string current_;
    int cut_after_ = -1;
    bool finished_ = false;
    bool reply_due_ = false;  // a status update asked for a reply
    Lsn sent_end_ = 0;  // the walsender's sentPtr: how far it has read the WAL
};

class SimPostgres {
public:
    SimPostgres(SimClock& clock, std::mt19937_64& random, Trace& trace);

    // Workload: appends a committed transaction (or a non-transactional message); assigns LSNs.
    const WalItem& commit(WalItem item);
    // WAL written by tables outside the publication: the WAL end moves, nothing is published.
    void unpublished_write(Lsn bytes) { wal_end_ += (bytes + 7) / 8 * 8; }
    Lsn wal_end() const { return wal_end_; }
    const std::vector<WalItem>& wal() const { return wal_; }
    std::vector<SimRelation> relations;
    const SimRelation* relation(std::uint32_t relid) const;

    // The slot.
    Lsn slot_confirmed() const { return slot_confirmed_; }
    bool slot_active() const { return active_ != nullptr; }
    // Set-up (sim_setup.cpp drives these): whether the slot exists, CREATE_REPLICATION_SLOT (a
    // new slot starts at the WAL's end; false when it exists) and DROP_REPLICATION_SLOT (false
    // while a connection streams from it).
    bool slot_exists() const { return slot_exists_; }
    bool create_slot();
    bool drop_slot();
    // Where the slot was created, and whether a status update has moved it since.
    Lsn slot_created_at() const { return slot_created_at_; }
    bool slot_advanced() const { return slot_confirmed_ > slot_created_at_; }
    // The walsender stays silent until then (a stalled proxy, or a server busy decoding).
    Clock::time_point silent_until{};
    // START_REPLICATION: streams from the slot's confirmed position. Nothing when another
    // connection holds the slot; DefiniteError when there is no slot.
    std::unique_ptr<SimWalStream> start_replication();
    // Called with every standby status update's flush position before the slot adopts it.
    std::function<void(Lsn flushed)> on_confirm;
    // Called after the slot adopted a status update, and when the router ends a stream cleanly
    // (after its final status update).
    std::function<void(const SimWalStream& stream)> on_status_update;
    std::function<void(const SimWalStream& stream)> on_finish;
    // Whether the walsender ever sent `lsn` as a position the client may confirm: a commit's
    // end, a non-transactional message's position (its record's end), a keepalive's WAL end, or
    // the slot's position when streaming started.
    bool sent_as_end(Lsn lsn) const { return sent_ends_.contains(lsn); }

    SimClock& clock() { return clock_; }
    std::mt19937_64& random() { return random_; }
    Trace& trace() { return trace_; }

private:
    friend class SimWalStream;
    SimClock& clock_;
    std::mt19937_64& random_;
    Trace& trace_;
    std::vector<WalItem> wal_;
    Lsn wal_end_ = 0x1000000;
    std::uint32_t next_xid_ = 1000;
    Lsn slot_confirmed_ = 0x1000000;
    bool slot_exists_ = true;
    Lsn slot_created_at_ = 0x1000000;
    SimWalStream* active_ = nullptr;
    int connections_ = 0;
    std::set<Lsn> sent_ends_;
};

}  // namespace outbox::simulation
