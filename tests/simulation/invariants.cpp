#include "invariants.hpp"

#include <algorithm>
#include <set>

#include "outbox/util/lsn.hpp"

namespace outbox::simulation {
namespace {

int serial_in(const StoredRecord& r) {
    for (const auto& [name, value] : r.headers)
        if (name == "id" && value) return Workload::serial_of_id(*value);
    // A dead-lettered non-transactional message has no id header: its value names it.
    if (r.value) {
        const auto at = r.value->find("\"sim\":");
        if (at != std::string::npos) return std::atoi(r.value->c_str() + at + 6);
    }
    return -1;
}

}  // namespace

Checker::Checker(SimPostgres& server, SimCluster& cluster, const Workload& workload, Expectations expect)
    : server_(server), cluster_(cluster), workload_(workload), expect_(expect) {
    server_.on_status_update = [this](const SimWalStream& stream) { not_behind(stream, "after a status update"); };
    server_.on_finish = [this](const SimWalStream& stream) { not_behind(stream, "after a clean stop"); };
    cluster_.on_accepted = [this](int instance, const StoredRecord& r) {
        const int serial = serial_in(r);
        if (serial < 0) return;
        // Another producer still alive (a router of a pair, or a paused one) wrote it before: it
        // had it at risk when this one took over, if the slot had not passed it.
        auto& writers = accepted_by_[serial];
        for (const int earlier : writers)
            if (earlier != instance && !producers_[earlier].retired && !covered(serial)) producers_[earlier].at_risk.insert(serial);
        if (std::find(writers.begin(), writers.end(), instance) == writers.end()) writers.push_back(instance);
        producers_[instance].accepted.insert(serial);
    };
    cluster_.on_report = [this](int instance, const StoredRecord& r, rd_kafka_resp_err_t error) {
        const int serial = serial_in(r);
        if (serial < 0) return;
        if (error == RD_KAFKA_RESP_ERR_NO_ERROR) producers_[instance].delivered.insert(serial);
        else if (error == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE || error == RD_KAFKA_RESP_ERR_INVALID_TIMESTAMP)
            producers_[instance].refused.insert(serial);
    };
    // What a retired producer accepted beyond the slot may be in Kafka and comes again.
    cluster_.on_retired = [this](int instance) {
        auto& seen = producers_[instance];
        seen.retired = true;
        for (const int serial : seen.accepted)
            if (!covered(serial)) seen.at_risk.insert(serial);
    };
}

// The slot has passed the event's transaction: the server does not send it again.
bool Checker::covered(int serial) const {
    return server_.wal()[workload_.events()[static_cast<std::size_t>(serial)].item].commit_lsn < server_.slot_confirmed();
}

// At-least-once: the producer whose reports the streaming router acts on, when it is the only one
// alive that wrote anything (with a pair of routers, or a paused one, it is not known which).
std::optional<int> Checker::sole_producer() const {
    std::optional<int> sole;
    for (const auto& [instance, seen] : producers_) {
        if (seen.retired || seen.accepted.empty()) continue;
        if (sole) return std::nullopt;
        sole = instance;
    }
    return sole;
}

bool Checker::visible(const StoredRecord& r) const {
    if (!expect_.exactly_once) return r.state != StoredRecord::State::aborted;
    return r.state == StoredRecord::State::committed || r.state == StoredRecord::State::plain;
}

void Checker::scan() {
    for (auto& [name, topic] : cluster_.topics()) {
        if (name.rfind("outbox-router-offsets", 0) == 0) continue;
        const bool dead = !expect_.dead_letter_topic.empty() && name == expect_.dead_letter_topic;
        for (std::size_t p = 0; p < topic.partitions.size(); ++p) {
            auto& done = scanned_[{name, static_cast<int>(p)}];
            const auto& log = topic.partitions[p];
            for (; done < log.size(); ++done) {
                const int serial = serial_in(log[done]);
                if (serial < 0) throw Violation("kafka holds a record of topic " + name + " that is no event");
                (dead ? dead_ : in_topics_)[serial].push_back({name, static_cast<int>(p), done, log[done].producer_instance});
            }
        }
    }
}

bool Checker::accounted(const Event& e) {
    const auto present = [&](const std::map<int, std::vector<Copy>>& where) {
        const auto found = where.find(e.serial);
        if (found == where.end()) return false;
        for (const auto& c : found->second)
            if (visible(cluster_.topics()[c.topic].partitions[static_cast<std::size_t>(c.partition)][c.offset])) return true;
        return false;
    };
    if (e.refusal == Event::Refusal::none) {
        if (!present(in_topics_)) return false;
        const auto& copy = in_topics_[e.serial].front();
        if (copy.topic != e.topic) throw Violation("event " + std::to_string(e.serial) + " went to topic " + copy.topic + ", not " + e.topic);
        return true;
    }
    if (present(in_topics_)) throw Violation("event " + std::to_string(e.serial) + " is refused by Kafka or the router, yet in a topic");
    // Refused: none stops the router before the slot passes it; all dead-letters or skips it.
    if (!expect_.tolerance_all) return false;
    if (expect_.dead_letter_topic.empty()) return true;
    return present(dead_);
}

void Checker::check_items_before(Lsn position, const std::string& why) {
    scan();
    const auto& wal = server_.wal();
    const auto& events = workload_.events();
    // Items are verified in order; Kafka never loses what made one pass.
    for (; verified_items_ < wal.size() && wal[verified_items_].commit_lsn < position; ++verified_items_) {
        for (const auto& change : wal[verified_items_].changes) {
            if (change.event < 0) continue;
            const Event& e = events[static_cast<std::size_t>(change.event)];
            if (!accounted(e))
                throw Violation(why + " " + format_lsn(position) + ", past the commit at " +
                                format_lsn(wal[verified_items_].commit_lsn) + " of event " + std::to_string(e.serial) +
                                (e.refusal == Event::Refusal::none ? "" : " (refused by Kafka or the router)") +
                                ", which Kafka does not hold" + (expect_.exactly_once ? " committed" : ""));
        }
    }
}

void Checker::confirming(Lsn flushed) {
    if (!server_.sent_as_end(flushed))
        throw Violation("the slot is confirmed to " + format_lsn(flushed) +
                        ", which the server never sent as a position to confirm (a commit's end, a message's end, a keepalive's WAL end)");
    check_items_before(flushed, "the slot is confirmed to");
}

bool Checker::acknowledged(const Event& e) {
    const bool produces = e.refusal == Event::Refusal::none || (expect_.tolerance_all && !expect_.dead_letter_topic.empty());
    if (!produces) {
        if (!expect_.tolerance_all) return false;  // refused for good: the router stops
        // Skipped: at once, or once Kafka's report refused it.
        if (e.refusal != Event::Refusal::report || expect_.exactly_once) return true;
        const auto producer = sole_producer();
        return producer && producers_[*producer].refused.contains(e.serial);
    }
    if (expect_.exactly_once) return accounted(e);
    const auto producer = sole_producer();
    return producer && producers_[*producer].delivered.contains(e.serial);
}

void Checker::stopped(const SimWalStream& stream, int producer) {
    not_behind(stream, "after a definite stop");
    if (expect_.exactly_once) return;
    // A stop waits up to shutdown.timeout.ms for what its own producer has in flight (a failed
    // report ends the wait, and a stalled Kafka outlasts it). The other router of a pair keeps
    // its records in flight.
    if (producer == 0) return;
    const auto log = cluster_.producers.find(producer);
    if (log == cluster_.producers.end()) return;
    if (log->second.in_flight > 0 && log->second.failed_reports == 0 && cluster_.clock().now() >= cluster_.faults.stalled_until)
        throw Violation("after a definite stop " + std::to_string(log->second.in_flight) +
                        " records are still in flight though Kafka answers: the router did not wait for them");
}

// Where the router could have confirmed to: the end of each transaction read on this connection,
// up to the first one with an event not acknowledged (at-least-once: reported delivered to the
// current producer; exactly-once: committed, and then only where a Kafka transaction ended).
void Checker::not_behind(const SimWalStream& stream, const std::string& when) {
    scan();
    const auto& wal = server_.wal();
    const auto& events = workload_.events();
    // Acknowledgements only accumulate, so each connection's walk resumes where it stopped
    // (from the start again when the producer was replaced).
    auto& walk = walks_[stream.connection()];
    const int producer = sole_producer().value_or(-1);
    if (walk.producer != producer) walk = {producer};
    const auto& read = stream.items_read();
    for (; walk.items < read.size(); ++walk.items) {
        const WalItem& item = wal[read[walk.items]];
        bool acked = true, in_kafka = false;
        for (const auto& change : item.changes) {
            if (change.event < 0) continue;
            const Event& e = events[static_cast<std::size_t>(change.event)];
            if (!acknowledged(e)) {
                acked = false;
                break;
            }
            in_kafka |= e.refusal == Event::Refusal::none || !expect_.dead_letter_topic.empty();
        }
        if (!acked) break;
        if ((!expect_.exactly_once || in_kafka) && item.end_lsn > walk.expected) {
            walk.expected = item.end_lsn;
            walk.last = read[walk.items];
        }
    }
    if (server_.slot_confirmed() >= walk.expected) return;
    throw Violation(when + " on connection " + std::to_string(stream.connection()) + " the slot stands at " +
                    format_lsn(server_.slot_confirmed()) + ", behind " + format_lsn(walk.expected) +
                    ", where the transaction committing at " + format_lsn(wal[walk.last].commit_lsn) +
                    " ends: it and everything the connection read before it are " +
                    (expect_.exactly_once ? "committed in Kafka" : "acknowledged"));
}

void Checker::everything_delivered() { check_items_before(server_.wal_end() + 1, "at the end, the WAL is complete to"); }

// The copies of one event in its topic (or the dead-letter topic) that a consumer sees.
void Checker::check_duplicate(int serial, const std::vector<const Copy*>& copies) {
    if (copies.size() < 2) return;
    duplicates_seen += copies.size() - 1;
    if (expect_.exactly_once)
        throw Violation("event " + std::to_string(serial) + " is " + std::to_string(copies.size()) + " times in the read_committed view");
    std::set<int> instances;
    for (const Copy* c : copies) {
        if (!instances.insert(c->instance).second)
            throw Violation("event " + std::to_string(serial) + " is in " + c->topic + " twice from the same producer #" +
                            std::to_string(c->instance) + ": a duplicate without a crash or a producer replacement");
        if (c == copies.front()) continue;
        // A later copy comes from a replay: one of the producers that wrote it had it at risk
        // when it ended or another took over (whichever of them Kafka appended first).
        bool at_risk = false;
        for (const Copy* other : copies) at_risk |= producers_[other->instance].at_risk.contains(serial);
        if (!at_risk)
            throw Violation("event " + std::to_string(serial) + " is in " + c->topic + " again from producer #" +
                            std::to_string(c->instance) + ", though no producer that wrote it had it in flight "
                            "(accepted, past the slot) when it was replaced, killed or taken over");
    }
}

void Checker::check_kafka() {
    scan();
    duplicates_seen = 0;
    duplicates_allowed = 0;
    for (const auto& [instance, seen] : producers_) duplicates_allowed += seen.at_risk.size();
    for (auto* where : {&in_topics_, &dead_}) {
        for (const auto& [serial, copies] : *where) {
            if (copies.size() < 2) continue;
            std::vector<const Copy*> seen;
            for (const auto& c : copies)
                if (visible(cluster_.topics()[c.topic].partitions[static_cast<std::size_t>(c.partition)][c.offset])) seen.push_back(&c);
            std::sort(seen.begin(), seen.end(), [this](const Copy* a, const Copy* b) {
                return cluster_.topics()[a->topic].partitions[static_cast<std::size_t>(a->partition)][a->offset].sequence <
                       cluster_.topics()[b->topic].partitions[static_cast<std::size_t>(b->partition)][b->offset].sequence;
            });
            check_duplicate(serial, seen);
        }
    }
    if (duplicates_seen > duplicates_allowed)
        throw Violation(std::to_string(duplicates_seen) + " duplicates, more than the " + std::to_string(duplicates_allowed) +
                        " events replaced or killed producers had in flight");
    // Per key: first occurrences in commit order. Across the topic, by when Kafka appended them:
    // partitions added move a key, and a replay after that lands in the new partition.
    const auto& events = workload_.events();
    std::map<std::string, std::pair<int, std::uint64_t>> newest;  // topic/key → (serial, first append)
    for (const auto& [serial, copies] : in_topics_) {
        std::uint64_t first = 0;
        for (const auto& c : copies) {
            const auto& r = cluster_.topics()[c.topic].partitions[static_cast<std::size_t>(c.partition)][c.offset];
            if (visible(r) && (first == 0 || r.sequence < first)) first = r.sequence;
        }
        if (first == 0) continue;
        const auto& e = events[static_cast<std::size_t>(serial)];
        if (cluster_.resized.contains(e.topic)) continue;
        auto& last = newest[e.topic + "/" + e.key];
        if (first < last.second)
            throw Violation("topic " + e.topic + ", key " + e.key + ": event " + std::to_string(serial) +
                            " first appeared after event " + std::to_string(last.first) + ", which was committed later");
        last = {serial, first};
    }
}

void Checker::check_bounds(std::size_t events_in_flight, std::size_t pending, long max_inflight) {
    if (static_cast<long>(events_in_flight) > max_inflight)
        throw Violation(std::to_string(events_in_flight) + " events in flight, over max.inflight.messages " + std::to_string(max_inflight));
    if (static_cast<long>(pending) > max_inflight)
        throw Violation(std::to_string(pending) + " transactions pending, over max.inflight.messages " + std::to_string(max_inflight));
}

}  // namespace outbox::simulation
