#include "outbox/replication/failover_readiness.hpp"

#include <algorithm>
#include <memory>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "outbox/config/conninfo.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::replication {
namespace {

std::string value(const PgResult& result, int row, int column) {
    return PQgetisnull(result.get(), row, column) ? std::string() : PQgetvalue(result.get(), row, column);
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        item.erase(std::remove_if(item.begin(), item.end(), [](char c) { return c == ' ' || c == '"'; }), item.end());
        if (!item.empty()) items.push_back(item);
    }
    return items;
}

struct ConninfoOptionsDeleter {
    void operator()(PQconninfoOption* options) const { PQconninfoFree(options); }
};

}  // namespace

FailoverReadiness::FailoverReadiness(const PgConnection& primary, std::string slot_name, Report report)
    : primary_(primary), slot_(std::move(slot_name)), report_(std::move(report)) {}

void FailoverReadiness::check_primary() {
    const auto setting = primary_.exec("SHOW synchronized_standby_slots", "reading synchronized_standby_slots");
    const auto listed_names = split_list(value(setting, 0, 0));
    synchronized_standby_slots_ = {listed_names.begin(), listed_names.end()};
    const auto& listed = synchronized_standby_slots_;
    // pg_stat_replication's columns other than pid are NULL for a role without pg_read_all_stats.
    const auto slots = primary_.exec(
        "SELECT s.slot_name, s.active, coalesce(r.application_name, 'pid ' || s.active_pid) "
        "FROM pg_catalog.pg_replication_slots s LEFT JOIN pg_catalog.pg_stat_replication r ON r.pid = s.active_pid "
        "WHERE s.slot_type = 'physical' ORDER BY s.slot_name",
        "reading the physical replication slots");
    std::set<std::string> existing;
    bool any_standby = false;
    for (int row = 0; row < PQntuples(slots.get()); ++row) {
        const std::string name = value(slots, row, 0);
        const bool active = value(slots, row, 1) == "t";
        existing.insert(name);
        const bool in_list = listed.count(name) > 0;
        if (active) any_standby = true;
        if (active && in_list) {
            report_(true, "postgres: standby slot \"" + name + "\" (" + value(slots, row, 2) +
                              ") is in synchronized_standby_slots: the router receives only transactions that standby "
                              "has received");
        } else if (active) {
            report_(false, "postgres: standby slot \"" + name + "\" (" + value(slots, row, 2) +
                               ") is not in synchronized_standby_slots, so the router may publish transactions that "
                               "standby has not received; after a failover to it those events are phantom events "
                               "(in Kafka, absent from the database). On the primary: ALTER SYSTEM SET "
                               "synchronized_standby_slots = '" + name + "'; SELECT pg_reload_conf()");
        } else if (in_list) {
            report_(false, "postgres: synchronized_standby_slots lists \"" + name +
                               "\", but no standby streams from it: the router receives no new transactions until "
                               "that standby is back (or the slot leaves the list)");
        }
    }
    for (const auto& name : listed_names)
        if (!existing.count(name))
            report_(false, "postgres: synchronized_standby_slots lists \"" + name +
                               "\", which is not a physical replication slot on this server: the router receives no "
                               "new transactions until it exists and its standby streams");
    const auto unslotted = primary_.exec(
        "SELECT coalesce(r.application_name, 'pid ' || r.pid) FROM pg_catalog.pg_stat_replication r "
        "WHERE r.state IN ('streaming', 'catchup') AND r.pid <> pg_catalog.pg_backend_pid() "
        "AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_replication_slots s WHERE s.active_pid = r.pid)",
        "reading the standbys");
    for (int row = 0; row < PQntuples(unslotted.get()); ++row) {
        any_standby = true;
        report_(false, "postgres: a standby (" + value(unslotted, row, 0) +
                           ") streams without a physical replication slot: replication slots are synchronized only "
                           "to a standby with primary_slot_name set, so after a failover to it the router finds no slot");
    }
    if (!any_standby && listed_names.empty())
        report_(true, "postgres: no standby streams from this server; slot \"" + slot_ +
                          "\" is synchronized to one that uses a physical slot listed in synchronized_standby_slots");
}

void FailoverReadiness::check_standbys(const std::string& conninfo) {
    char* error = nullptr;
    const std::unique_ptr<PQconninfoOption, ConninfoOptionsDeleter> options(PQconninfoParse(conninfo.c_str(), &error));
    if (!options) {
        if (error) PQfreemem(error);
        return;
    }
    std::string hosts;
    std::string ports;
    std::string base;  // every other parameter, as key='value'
    for (const PQconninfoOption* o = options.get(); o->keyword; ++o) {
        if (!o->val) continue;
        const std::string keyword = o->keyword;
        if (keyword == "host") hosts = o->val;
        else if (keyword == "port") ports = o->val;
        else if (keyword != "hostaddr" && keyword != "replication" && keyword != "target_session_attrs" &&
                 keyword != "connect_timeout")
            base += keyword + "=" + config::quoted_conninfo_value(o->val) + " ";
    }
    const auto host_list = split_list(hosts);
    if (host_list.size() < 2) {
        report_(false, "postgres: conninfo names one host, so --check cannot reach a standby to check "
                       "sync_replication_slots and hot_standby_feedback there; name primary and standby "
                       "(host=a,b port=p,q target_session_attrs=read-write) so that the router follows a failover");
        return;
    }
    const auto port_list = split_list(ports);
    const std::string connected_host = PQhost(primary_.raw()) ? PQhost(primary_.raw()) : "";
    const std::string connected_port = PQport(primary_.raw()) ? PQport(primary_.raw()) : "";
    for (std::size_t i = 0; i < host_list.size(); ++i) {
        const std::string port = port_list.empty() ? "" : port_list.size() == 1 ? port_list[0] : port_list.at(std::min(i, port_list.size() - 1));
        if (host_list[i] == connected_host && (port.empty() || port == connected_port)) continue;
        check_standby(base + "host=" + config::quoted_conninfo_value(host_list[i]) +
                          (port.empty() ? "" : " port=" + config::quoted_conninfo_value(port)) +
                          " target_session_attrs=any connect_timeout=5",
                      host_list[i], port);
    }
}

void FailoverReadiness::check_standby(const std::string& conninfo, const std::string& host, const std::string& port) {
    const std::string where = "postgres: " + host + (port.empty() ? "" : ":" + port);
    try {
        const PgConnection standby(conninfo, PgConnection::Mode::sql);
        if (standby.server_version() < 170000) {
            report_(false, where + " runs PostgreSQL " + std::to_string(standby.server_version() / 10000) +
                               ", which cannot synchronize replication slots (17 and later can)");
            return;
        }
        const auto settings = standby.exec(
            "SELECT pg_catalog.pg_is_in_recovery(), current_setting('sync_replication_slots'), "
            "current_setting('hot_standby_feedback'), current_setting('primary_slot_name')",
            "reading the standby's settings");
        if (value(settings, 0, 0) != "t") {
            report_(false, where + " is not a standby (pg_is_in_recovery() is false)");
            return;
        }
        bool ready = true;
        if (value(settings, 0, 1) != "on") {
            ready = false;
            report_(false, where + ": sync_replication_slots is off, so slot \"" + slot_ +
                               "\" is not synchronized to this standby and after a failover to it the router finds "
                               "no slot; set sync_replication_slots = on (and dbname in primary_conninfo)");
        }
        if (value(settings, 0, 2) != "on") {
            ready = false;
            report_(false, where + ": hot_standby_feedback is off; slot synchronization needs it on");
        }
        const std::string primary_slot = value(settings, 0, 3);
        if (primary_slot.empty()) {
            ready = false;
            report_(false, where + ": primary_slot_name is not set; slots are synchronized only to a standby "
                                   "that streams from a physical slot");
        } else if (!synchronized_standby_slots_.count(primary_slot)) {
            ready = false;
            report_(false, where + ": its physical slot \"" + primary_slot +
                               "\" is not in the primary's synchronized_standby_slots, so the router may publish "
                               "transactions this standby has not received: after a failover to it, phantom events");
        }
        const auto synced = standby.exec(
            "SELECT synced, invalidation_reason FROM pg_catalog.pg_replication_slots WHERE slot_name = " +
                standby.quote_literal(slot_),
            "looking up the synchronized slot");
        if (PQntuples(synced.get()) == 0 || value(synced, 0, 0) != "t") {
            report_(false, where + ": slot \"" + slot_ + "\" is not synchronized to this standby (yet)");
        } else if (!value(synced, 0, 1).empty()) {
            report_(false, where + ": the synchronized copy of slot \"" + slot_ + "\" is invalidated (" +
                               value(synced, 0, 1) + ")");
        } else if (ready) {
            report_(true, where + " is a standby with sync_replication_slots on, streaming from physical slot \"" +
                              primary_slot + "\"; slot \"" + slot_ + "\" is synchronized there");
        }
    } catch (const std::exception& e) {
        report_(false, where + ": cannot check it as a standby: " + one_line(e.what()));
    }
}

}  // namespace outbox::replication
