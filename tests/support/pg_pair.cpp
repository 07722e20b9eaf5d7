#include "pg_pair.hpp"

#include <stdexcept>

#include "harness.hpp"

namespace outbox::test {

PgPair::PgPair(int major, const std::string& prefix) : major_(major) {
    // Commit times let `outbox-router replay` select the rows of a window.
    PgServerOptions options = fetched_pg(major);
    options.settings = "track_commit_timestamp = on\n";
    primary_ = std::make_unique<PgServer>(options);
    database_ = create_outbox_database(*primary_, prefix);
    Sql(primary_->conninfo("postgres"))
        .exec("SELECT pg_create_physical_replication_slot('" + std::string(kStandbySlot) + "', true)");
    primary_->stop();
    PgServerOptions copy = fetched_pg(major);
    copy.copy_of = primary_->data_dir();
    copy.standby = true;
    // dbname is what slot synchronization connects to.
    copy.settings = "hot_standby = on\n"
                    "primary_conninfo = 'host=127.0.0.1 port=" + std::to_string(primary_->port()) +
                    " user=postgres dbname=postgres application_name=" + kStandbySlot +
                    " sslmode=verify-full sslrootcert=" + test_ca().certificate() + "'\n"
                    "primary_slot_name = '" + kStandbySlot + "'\n"
                    "hot_standby_feedback = on\n";
    // The copy must not wait for a standby slot only the primary has.
    if (major >= 17) copy.settings += "sync_replication_slots = on\nsynchronized_standby_slots = ''\n";
    standby_ = std::make_unique<PgServer>(copy);
    primary_->start();
    const Sql primary(primary_->conninfo("postgres"));
    const bool streaming = wait_until(
        [&] {
            return primary.scalar("SELECT count(*) FROM pg_stat_replication WHERE application_name = '" +
                                  std::string(kStandbySlot) + "' AND state = 'streaming'") == "1";
        },
        std::chrono::seconds(60));
    if (!streaming) throw std::runtime_error("the standby of PostgreSQL " + std::to_string(major) + " does not stream");
}

std::string PgPair::pair_conninfo() const {
    std::string conninfo = primary_->conninfo(database_);
    const std::string port = "port=" + std::to_string(primary_->port());
    conninfo.replace(conninfo.find(port), port.size(), port + "," + std::to_string(standby_->port()));
    const std::string host = "host=127.0.0.1";
    conninfo.replace(conninfo.find(host), host.size(), host + ",127.0.0.1");
    return conninfo + " target_session_attrs=read-write";
}

bool PgPair::slot_synced_to_standby(const std::string& slot) const {
    return major_ >= 17 && standby_sql().scalar("SELECT synced AND NOT temporary FROM pg_replication_slots WHERE "
                                                "slot_name = '" + slot + "'") == "t";
}

}  // namespace outbox::test
