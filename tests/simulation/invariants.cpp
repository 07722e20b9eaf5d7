#include "invariants.hpp"

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

void Checker::confirming(Lsn flushed) { check_items_before(flushed, "the slot is confirmed to"); }

void Checker::everything_delivered() { check_items_before(server_.wal_end() + 1, "at the end, the WAL is complete to"); }

void Checker::check_kafka() {
    scan();
    duplicates_seen = 0;
    for (const auto& [serial, copies] : in_topics_) {
        std::set<int> instances;
        int visible_copies = 0;
        for (const auto& c : copies) {
            const auto& r = cluster_.topics()[c.topic].partitions[static_cast<std::size_t>(c.partition)][c.offset];
            if (!visible(r)) continue;
            ++visible_copies;
            if (!expect_.exactly_once && !instances.insert(c.instance).second)
                throw Violation("event " + std::to_string(serial) + " is in Kafka twice from the same producer #" +
                                std::to_string(c.instance) + ": a duplicate without a crash or a producer replacement");
        }
        if (visible_copies > 1) duplicates_seen += static_cast<std::size_t>(visible_copies - 1);
        if (expect_.exactly_once && visible_copies > 1)
            throw Violation("event " + std::to_string(serial) + " is " + std::to_string(visible_copies) +
                            " times in the read_committed view");
    }
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
