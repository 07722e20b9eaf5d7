#include "workload.hpp"

#include <cstdio>

namespace outbox::simulation {
namespace {

const char* const kTypes[] = {"Order", "Invoice", "Stock"};
constexpr std::uint32_t kUuid = 2950, kText = 25, kJsonb = 3802, kInt = 23;

std::vector<std::pair<std::string, std::uint32_t>> outbox_columns() {
    return {{"id", kUuid}, {"aggregatetype", kText}, {"aggregateid", kText}, {"type", kText}, {"payload", kJsonb}};
}

}  // namespace

Workload::Workload(SimPostgres& server, std::mt19937_64& random, WorkloadMix mix)
    : server_(server), random_(random), mix_(mix) {
    server_.relations.push_back({kOutbox, "public", "outbox", outbox_columns()});
    server_.relations.push_back({kOutbox2, "public", "outbox2", outbox_columns()});
    server_.relations.push_back({kOther, "public", "orders", {{"id", kInt}, {"note", kText}}});
}

int Workload::serial_of_id(std::string_view id) {
    if (id.size() < 12) return -1;
    return std::atoi(std::string(id.substr(id.size() - 12)).c_str());
}

Event& Workload::new_event(std::size_t item, bool allow_poison) {
    Event e;
    e.serial = static_cast<int>(events_.size());
    char id[40];
    std::snprintf(id, sizeof id, "00000000-0000-4000-8000-%012d", e.serial);
    e.id = id;
    e.key = "k" + std::to_string(random_() % 5);
    e.topic = std::string("outbox.event.") + kTypes[random_() % 3];
    e.item = item;
    if (allow_poison && mix_.poison && random_() % 40 == 0) {
        const int kind = static_cast<int>(random_() % 3);
        e.refusal = kind == 0 ? Event::Refusal::route : kind == 1 ? Event::Refusal::produce : Event::Refusal::report;
        if (e.refusal == Event::Refusal::route) e.topic.clear();
        e.other_reason = random_() % 2 == 0;
    }
    events_.push_back(e);
    return events_.back();
}

namespace {

std::string payload_of(const Event& e) {
    std::string payload = "{\"sim\":" + std::to_string(e.serial);
    if (e.refusal == Event::Refusal::produce)
        payload += e.other_reason ? std::string(",\"sim_refuse\":\"partition\"") : ",\"pad\":\"" + std::string(9000, 'x') + "\"";
    if (e.refusal == Event::Refusal::report)
        payload += e.other_reason ? std::string(",\"sim_refuse\":\"timestamp\"") : ",\"pad\":\"" + std::string(5000, 'x') + "\"";
    return payload + "}";
}

std::string type_of(const Event& e) { return e.topic.substr(e.topic.rfind('.') + 1); }

}  // namespace

Change Workload::outbox_row(std::uint32_t relid, std::size_t item) {
    const Event& e = new_event(item, true);
    Change c;
    c.kind = Change::Kind::outbox_row;
    c.relid = relid;
    c.event = e.serial;
    c.values = {e.id, e.topic.empty() ? std::nullopt : std::optional<std::string>(type_of(e)), e.key, std::string("Created"),
                payload_of(e)};
    return c;
}

Change Workload::message(std::size_t item, bool transactional) {
    Event& e = new_event(item, transactional);
    // The router refuses a non-transactional message (it has no transaction to route in).
    if (!transactional) e.refusal = Event::Refusal::route;
    Change c;
    c.kind = Change::Kind::message;
    c.event = e.serial;
    c.prefix = "outbox";
    const std::string type = e.topic.empty() ? "Order" : type_of(e);
    c.content = "{\"id\":\"" + e.id + "\",\"aggregatetype\":" + (e.topic.empty() ? std::string("null") : "\"" + type + "\"") +
                ",\"aggregateid\":\"" + e.key + "\",\"type\":\"Created\",\"payload\":" + payload_of(e) + "}";
    return c;
}

void Workload::commit_next() {
    const std::size_t item = server_.wal().size();
    WalItem w;
    if (mix_.non_transactional_messages && random_() % 25 == 0) {
        w.transaction = false;
        w.changes.push_back(message(item, false));
        server_.commit(std::move(w));
        return;
    }
    int rows = 1 + static_cast<int>(random_() % 3);
    if (mix_.large_every > 0 && random_() % static_cast<unsigned>(mix_.large_every) == 0) rows = 20 + static_cast<int>(random_() % 120);
    if (random_() % 10 == 0) rows = 0;  // a transaction of other tables only
    for (int i = 0; i < rows; ++i) {
        const auto pick = random_() % 10;
        if (pick == 0) {
            Change other;
            other.kind = Change::Kind::other_row;
            other.relid = kOther;
            other.values = {std::to_string(i), std::string("note")};
            w.changes.push_back(std::move(other));
        } else if (pick == 1 && mix_.messages) {
            w.changes.push_back(message(item, true));
        } else {
            w.changes.push_back(outbox_row(mix_.second_table && pick == 2 ? kOutbox2 : kOutbox, item));
        }
    }
    if (w.changes.empty()) {
        Change other;
        other.kind = Change::Kind::other_row;
        other.relid = kOther;
        other.values = {std::string("0"), std::string("note")};
        w.changes.push_back(std::move(other));
    }
    server_.commit(std::move(w));
}

}  // namespace outbox::simulation
