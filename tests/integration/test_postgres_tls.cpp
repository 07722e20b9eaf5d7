#define BOOST_TEST_MODULE postgres_tls
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <csignal>

#include "delivery_tally.hpp"
#include "harness.hpp"
#include "http_get.hpp"
#include "outbox/replication/pg_connection.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// PostgreSQL as production runs it, against the real server: the server verified
// (sslmode=verify-full against the test CA), certificates that fail verification, client
// certificates, a password from a file, the side connections on the same settings, and a role with
// no more privileges than docs/operations.md lists.

namespace {

constexpr const char* kCertRole = "outbox_cert";
constexpr const char* kPasswordRole = "outbox_pw";
constexpr const char* kPassword = "pw-from-file-7f3c91";
constexpr const char* kLeastRole = "outbox_least";
constexpr const char* kNoReplicationRole = "outbox_norepl";
constexpr const char* kNoLoginRole = "outbox_nologin";

// Roles that log in by certificate or by password (TLS only); everyone else as initdb set it up.
struct Roles {
    Roles() {
        Sql admin(postgres().conninfo("postgres"));
        admin.exec(std::string("CREATE ROLE ") + kCertRole + " LOGIN REPLICATION");
        admin.exec(std::string("CREATE ROLE ") + kPasswordRole + " LOGIN REPLICATION PASSWORD '" + kPassword + "'");
        admin.exec(std::string("CREATE ROLE ") + kLeastRole + " LOGIN REPLICATION");
        admin.exec(std::string("CREATE ROLE ") + kNoReplicationRole + " LOGIN");
        admin.exec(std::string("CREATE ROLE ") + kNoLoginRole + " NOLOGIN REPLICATION");
        postgres().set_hba(std::string("local all all trust\n") +
                           "hostssl all " + kCertRole + " 127.0.0.1/32 cert\n" +
                           "hostssl all " + kPasswordRole + " 127.0.0.1/32 scram-sha-256\n" +
                           "host all all 127.0.0.1/32 trust\n");
    }
};
BOOST_TEST_GLOBAL_FIXTURE(Roles);

bool connects(const std::string& conninfo) {
    try {
        Sql probe(conninfo);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

// The server presents `pair` for the length of a test case, then a good certificate again. A
// reload applies to new connections once the postmaster has read it: wait for that.
class ServerCertificate {
public:
    explicit ServerCertificate(const CertifiedKey& pair) {
        postgres().use_certificate(pair);
        BOOST_REQUIRE(wait_until([] { return !connects(postgres().conninfo("postgres")); }, 10s));
    }
    ~ServerCertificate() {
        postgres().use_certificate(test_ca().server("postgres-again", {"127.0.0.1", "localhost"}));
        wait_until([] { return connects(postgres().conninfo("postgres")); }, 10s);
    }
};

// An outbox database whose publication the table owner created, and whose outbox `role` may read.
std::string outbox_database_for(const std::string& prefix, const std::string& role) {
    const auto db = create_outbox_database(prefix);
    Sql owner(postgres().conninfo(db));
    owner.exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    owner.exec("GRANT SELECT ON outbox TO " + role);
    return db;
}

// router_config() with `conninfo` in place of the default one.
std::string config_with(const std::string& db, const std::string& conninfo, const std::string& topic,
                        const std::string& top_extra = "") {
    auto config = router_config(db, "  publication.autocreate.mode: disabled\n", top_extra,
                                "outbox:\n  route.topic.replacement: " + topic + "\n");
    const auto default_conninfo = postgres().conninfo(db);
    return config.replace(config.find(default_conninfo), default_conninfo.size(), conninfo);
}

void delivers(RouterProcess& router, const std::string& db, const std::string& topic) {
    BOOST_REQUIRE(router.wait_streaming());
    Sql(postgres().conninfo(db)).exec(outbox_rows_sql(0, 20, 3));
    BOOST_TEST(read_topic(kafka_servers(), topic, 20).size() == 20u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// A definite error: the router exits 1 by itself with the cause on its last line, and --check
// fails with the same cause.
void refused_definitely(const std::string& config, const std::string& cause) {
    RouterProcess router(work_dir(), config);
    BOOST_TEST(router.wait(60s) == 1, router.output());
    BOOST_TEST_MESSAGE("exit cause: " << last_line(router.output()));
    BOOST_TEST(contains(last_line(router.output()), cause), router.output());
    BOOST_TEST(!contains(router.output(), "reconnecting"), router.output());

    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 1, check.output());
    BOOST_TEST(contains(check.output(), "FAIL  postgres: cannot connect: "), check.output());
    BOOST_TEST(contains(check.output(), cause), check.output());
}

}  // namespace

// The suite's default conninfo verifies the server; every connection the router opens (the
// stream, the heartbeat, the slot monitor) carries its TLS settings.
BOOST_AUTO_TEST_CASE(verify_full_streams_and_every_connection_of_the_router_uses_tls) {
    const auto db = create_outbox_database("verified");
    const std::string topic = "verified.events";
    auto config = router_config(db, "  heartbeat.interval.ms: 200\n",
                                "metrics:\n  listen: \"127.0.0.1:" + std::to_string(free_loopback_port()) + "\"\n",
                                "outbox:\n  route.topic.replacement: " + topic + "\n");
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    const std::string backends =
        "FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.application_name LIKE 'outbox-router%' "
        "AND a.pid <> pg_backend_pid()";
    // The walsender, the heartbeat's session and the slot monitor's.
    BOOST_TEST(wait_until([&] {
        return sql.scalar("SELECT count(DISTINCT a.application_name || a.backend_type) " + backends) == "3";
    }, 30s), sql.rows("SELECT a.application_name, a.backend_type, s.ssl " + backends).size());
    BOOST_TEST(sql.scalar("SELECT count(*) " + backends + " AND NOT s.ssl") == "0");
    BOOST_TEST(sql.scalar("SELECT count(*) " + backends + " AND s.ssl") != "0");
    sql.exec(outbox_rows_sql(0, 20, 3));
    BOOST_TEST(read_topic(kafka_servers(), topic, 20).size() == 20u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

BOOST_AUTO_TEST_CASE(a_server_certificate_from_an_unknown_ca_is_a_definite_error) {
    const auto db = create_outbox_database("unknown_ca");
    const auto config = router_config(db);
    const TestCa other("another CA");
    const ServerCertificate presented(other.server("other-ca", {"127.0.0.1", "localhost"}));
    refused_definitely(config, "TLS certificate verification failed");
}

BOOST_AUTO_TEST_CASE(a_server_certificate_for_another_host_name_is_a_definite_error) {
    const auto db = create_outbox_database("wrong_host");
    const auto config = router_config(db);
    const ServerCertificate presented(test_ca().server("wrong-host", {"db.example.com"}));
    refused_definitely(config, "TLS certificate verification failed");
    RouterProcess check(work_dir(), config, "--check");
    check.wait(60s);
    BOOST_TEST(contains(check.output(), "does not match host name \"127.0.0.1\""), check.output());
}

BOOST_AUTO_TEST_CASE(an_expired_server_certificate_is_a_definite_error) {
    const auto db = create_outbox_database("expired");
    const auto config = router_config(db);
    const ServerCertificate presented(test_ca().expired_server("expired", {"127.0.0.1", "localhost"}));
    refused_definitely(config, "TLS certificate verification failed");
}

// pg_hba.conf: hostssl ... cert. The certificate's CN is the role.
BOOST_AUTO_TEST_CASE(a_client_certificate_logs_in_and_its_absence_is_a_definite_error) {
    const auto db = outbox_database_for("client_cert", kCertRole);
    const auto client = test_ca().client("outbox-cert-client", kCertRole);
    const std::string conninfo = postgres().conninfo(db) + " user=" + kCertRole;
    RouterProcess router(work_dir(), config_with(db, conninfo + " sslcert=" + client.certificate + " sslkey=" + client.key,
                                                 "cert.events"));
    delivers(router, db, "cert.events");

    refused_definitely(config_with(db, conninfo + " sslcert=/nonexistent.crt sslkey=/nonexistent.key", "cert.events"),
                       "FATAL:  connection requires a valid client certificate");
}

// libpq's passfile; the password shows nowhere in what the router prints.
BOOST_AUTO_TEST_CASE(a_password_from_a_file_logs_in_and_is_never_printed) {
    const auto db = outbox_database_for("passfile", kPasswordRole);
    const std::string passfile = work_dir() + "/pgpass";
    write_file(passfile, "127.0.0.1:" + std::to_string(postgres().port()) + ":*:" + kPasswordRole + ":" + kPassword + "\n");
    chmod(passfile.c_str(), 0600);
    const auto config =
        config_with(db, postgres().conninfo(db) + " user=" + kPasswordRole + " passfile=" + passfile, "passfile.events");

    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    RouterProcess router(work_dir(), config);
    delivers(router, db, "passfile.events");
    BOOST_TEST(!contains(router.output() + check.output(), kPassword));

    write_file(passfile, "127.0.0.1:" + std::to_string(postgres().port()) + ":*:" + kPasswordRole + ":wrong\n");
    refused_definitely(config, "password authentication failed for user \"" + std::string(kPasswordRole) + "\"");
}

// Kafka Connect's FileConfigProvider syntax in conninfo, as a migrating Debezium user has it: the
// router reads the properties file at load; the password shows nowhere in what it prints, and a
// missing key is an error naming the config's line, the file and the key.
BOOST_AUTO_TEST_CASE(a_password_from_a_file_reference_logs_in_and_is_never_printed) {
    const auto db = outbox_database_for("filereference", kPasswordRole);
    const std::string secrets = work_dir() + "/postgres-secrets.properties";
    write_file(secrets, std::string("# FileConfigProvider\ndatabase.password=") + kPassword + "\n");
    const auto conninfo = postgres().conninfo(db) + " user=" + kPasswordRole + " password=${file:" + secrets;
    const auto config = config_with(db, conninfo + ":database.password}", "filereference.events");

    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    RouterProcess router(work_dir(), config);
    delivers(router, db, "filereference.events");
    BOOST_TEST(!contains(router.output() + check.output(), kPassword));

    RouterProcess missing(work_dir(), config_with(db, conninfo + ":no.such.key}", "filereference.events"));
    BOOST_TEST(missing.wait(60s) == 1, missing.output());
    BOOST_TEST(contains(last_line(missing.output()), ".yaml:2: postgres.conninfo: ${file:" + secrets +
                                                         ":no.such.key}: " + secrets + " has no key \"no.such.key\""),
               missing.output());
    BOOST_TEST(!contains(missing.output(), kPassword));
}

// docs/operations.md, "Least-privilege role": LOGIN and REPLICATION, the publication created by the
// table owner beforehand, and nothing else: no SELECT on the outbox table (the router reads no rows:
// columns come from the catalog, events from the WAL). A full run on it: exactly-once, the slot
// monitor, JsonConverter with schemas (catalog reads) and the heartbeat.
BOOST_AUTO_TEST_CASE(a_role_with_only_login_and_replication_runs_everything) {
    const auto db = create_outbox_database("least");
    Sql owner(postgres().conninfo(db));
    owner.exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    BOOST_REQUIRE(owner.scalar(std::string("SELECT has_table_privilege('") + kLeastRole + "', 'outbox', 'SELECT')") == "f");
    const std::string topic = "least.events";
    const auto metrics_port = static_cast<std::uint16_t>(free_loopback_port());
    const auto config = config_with(
        db, postgres().conninfo(db) + " user=" + kLeastRole, topic,
        "delivery.guarantee: exactly-once\noffsets.topic: " + topic + ".offsets\n"
        "key.converter: org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable: true\n"
        "value.converter: org.apache.kafka.connect.json.JsonConverter\nvalue.converter.schemas.enable: true\n"
        "metrics:\n  listen: \"127.0.0.1:" + std::to_string(metrics_port) + "\"\n");
    auto full = config;
    full.insert(full.find("postgres:\n") + 10, "  heartbeat.interval.ms: 200\n");

    RouterProcess check(work_dir(), full, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    BOOST_TEST(!contains(check.output(), "FAIL"), check.output());

    RouterProcess router(work_dir(), full);
    BOOST_REQUIRE(router.wait_streaming());
    owner.exec(outbox_rows_sql(0, 20, 3));
    const auto records = read_topic(kafka_servers(), topic, 20);
    BOOST_TEST(records.size() == 20u);
    if (!records.empty())
        BOOST_TEST(records[0].value.value_or("").starts_with("{\"schema\":"), records[0].value.value_or("(null)"));
    BOOST_TEST(wait_until([&] {
        return sample_value(http_get(metrics_port, "/metrics").body, "outbox_router_slot_monitor_up") == 1.0;
    }, 30s));
    // The heartbeat keeps writing WAL: what was written by now is confirmed while the router runs
    // (a stop right away could come before the walsender sent the newest of it).
    const auto written = lsn_value(owner.scalar("SELECT pg_current_wal_lsn()"));
    BOOST_TEST(wait_until([&] { return confirmed_flush_lsn(db, db) >= written; }, 30s));
    BOOST_TEST(router.stop(SIGTERM) == 0, router.output());
    BOOST_TEST(!contains(router.output(), "permission denied"), router.output());
}

BOOST_AUTO_TEST_CASE(a_role_without_replication_is_told_the_grant_by_check_and_by_a_run) {
    const auto db = create_outbox_database("norepl");
    Sql(postgres().conninfo(db)).exec("CREATE PUBLICATION " + db + " FOR TABLE outbox");
    refused_definitely(config_with(db, postgres().conninfo(db) + " user=" + kNoReplicationRole, "norepl.events"),
                       "the role needs the REPLICATION attribute: ALTER ROLE <role> REPLICATION");
}

// The privileges a DBA may have taken away, as each major words the refusal.
BOOST_AUTO_TEST_CASE(a_role_without_connect_or_login_is_told_the_grant_by_check_and_by_a_run) {
    const auto db = outbox_database_for("noconnect", kLeastRole);
    Sql owner(postgres().conninfo(db));
    owner.exec("REVOKE CONNECT ON DATABASE " + db + " FROM PUBLIC");
    refused_definitely(config_with(db, postgres().conninfo(db) + " user=" + kLeastRole, "noconnect.events"),
                       "the role needs CONNECT on the database: GRANT CONNECT ON DATABASE <database> TO <role>");

    const auto nologin = create_outbox_database("nologin");
    Sql(postgres().conninfo(nologin)).exec("CREATE PUBLICATION " + nologin + " FOR TABLE outbox");
    refused_definitely(config_with(nologin, postgres().conninfo(nologin) + " user=" + kNoLoginRole, "nologin.events"),
                       "the role needs LOGIN: ALTER ROLE <role> LOGIN");
}

// A password holding a quote, a backslash, blanks and '=', from a ${file:} reference in a quoted
// conninfo value as outbox-router import writes it: the stream and the heartbeat's session log
// in with it and it shows nowhere. A conninfo libpq cannot read, inline or in a file, is refused
// at load naming the setting at fault, with nothing of the secret (libpq's own message would quote it).
BOOST_AUTO_TEST_CASE(a_password_with_quotes_backslashes_and_blanks_logs_in_and_a_broken_conninfo_prints_no_secret) {
    const auto db = outbox_database_for("quotedsecret", kPasswordRole);
    const std::string topic = "quotedsecret.events";
    struct PasswordRestored {
        ~PasswordRestored() {
            try {
                Sql(postgres().conninfo("postgres"))
                    .exec(std::string("ALTER ROLE ") + kPasswordRole + " PASSWORD '" + kPassword + "'");
            } catch (const std::exception& e) {
                BOOST_TEST_MESSAGE("the password of " << kPasswordRole << " was not restored: " << e.what());
            }
        }
    } restored;
    // o'k \ s3cr=t x, in SQL and in Java properties syntax.
    Sql(postgres().conninfo("postgres")).exec(std::string("ALTER ROLE ") + kPasswordRole + " PASSWORD 'o''k \\ s3cr=t x'");
    const std::string secrets = work_dir() + "/quoted-secrets.properties";
    write_file(secrets, "database.password=o'k \\\\ s3cr=t x\n"
                        "database.url=postgresql://" + std::string(kPasswordRole) + ":o%27k%zzs3cr@127.0.0.1:" +
                            std::to_string(postgres().port()) + "/" + db + "\n");
    const auto no_secret = [](const std::string& output) {
        return !contains(output, "s3cr") && !contains(output, "o'k") && !contains(output, "o%27k");
    };

    auto config = config_with(db, postgres().conninfo(db) + " user=" + kPasswordRole + " password='${file:" + secrets +
                                      ":database.password}'", topic);
    config.insert(config.find("postgres:\n") + 10, "  heartbeat.interval.ms: 200\n");
    RouterProcess check(work_dir(), config, "--check");
    BOOST_TEST(check.wait(60s) == 0, check.output());
    RouterProcess router(work_dir(), config);
    BOOST_REQUIRE(router.wait_streaming());
    Sql sql(postgres().conninfo(db));
    BOOST_TEST(wait_until([&] {
        return sql.scalar(std::string("SELECT count(*) FROM pg_stat_activity WHERE usename = '") + kPasswordRole +
                          "' AND application_name = 'outbox-router-heartbeat'") == "1";
    }, 30s));
    sql.exec(outbox_rows_sql(0, 20, 3));
    const auto tally = tally_deliveries(read_topic(kafka_servers(), topic, 20), 20);
    BOOST_TEST((tally.records == 20u && tally.duplicates == 0u && tally.missing == 0u), tally);
    BOOST_TEST(router.stop(SIGTERM) == 0);
    BOOST_TEST(no_secret(router.output() + check.output()), router.output() + check.output());

    const std::pair<std::string, std::string> broken[] = {
        {postgres().conninfo(db) + " user=" + kPasswordRole + " password=o'k s3cr=t",
         ".yaml:2: postgres.conninfo: the setting after password=... names no libpq connection option"},
        {"${file:" + secrets + ":database.url}",
         ".yaml:2: postgres.conninfo: the conninfo in ${file:" + secrets + ":database.url}: libpq cannot read this "
         "connection URI"}};
    for (const auto& [conninfo, cause] : broken) {
        for (const auto* mode : {"", "--check"}) {
            RouterProcess refused(work_dir(), config_with(db, conninfo, topic), mode);
            BOOST_TEST(refused.wait(60s) == 1, refused.output());
            BOOST_TEST(contains(last_line(refused.output()), cause), refused.output());
            BOOST_TEST(no_secret(refused.output()), refused.output());
        }
    }
}
