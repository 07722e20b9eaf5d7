#define BOOST_TEST_MODULE postgres_gssapi
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>

#include "harness.hpp"
#include "kdc.hpp"
#include "outbox_source.hpp"
#include "queued_backlog.hpp"
#include "outbox/replication/replication_stream.hpp"

using namespace outbox;
using namespace outbox::test;
using namespace std::chrono_literals;

// PostgreSQL's GSSAPI encryption (gssencmode=require) against the real server and a real MIT
// Kerberos KDC started for this program: the router logs in by Kerberos, every connection it
// opens is encrypted by GSSAPI, and its replication reads over GSSAPI encryption, which libpq
// decrypts as it does TLS, bring whole batches and the end of a backlog without waiting for more.

namespace {

// libpq names the service postgres/<host>: the host name, with the address given apart.
std::string gss_conninfo(const std::string& database) {
    return "host=localhost hostaddr=127.0.0.1 port=" + std::to_string(postgres().port()) + " dbname=" + database +
           " user=postgres gssencmode=require";
}

// The realm, the server's keytab, a ticket for the client principal "postgres" (the role it maps
// to with include_realm=0), and pg_hba.conf: GSSAPI-encrypted connections authenticate by
// Kerberos, TLS ones (the test's own set-up) are trusted, nothing else gets in.
struct Kerberos {
    Kerberos() {
        // The test's own sessions: TLS only, so that every GSSAPI-encrypted session is the router's.
        setenv("PGGSSENCMODE", "disable", 1);
        const std::string server_keytab = kdc.add_principal("postgres/localhost");
        kdc.log_in("postgres", kdc.add_principal("postgres"));
        // pg_hba.conf first: set_hba reloads over plain TCP, which a reload still pending from
        // set() could already have refused.
        postgres().set_hba("local all all trust\n"
                           "hostgssenc all postgres 127.0.0.1/32 gss include_realm=0 krb_realm=" + kdc.realm() + "\n" +
                           "hostssl all all 127.0.0.1/32 trust\n");
        postgres().set("krb_server_keyfile", server_keytab);
        // The reload is asynchronous: the keytab is in use once a GSSAPI session gets in.
        BOOST_REQUIRE(wait_until([] {
            try {
                Sql probe(gss_conninfo("postgres"));
                return true;
            } catch (const std::exception&) {
                return false;
            }
        }, 10s));
        instance = this;
    }
    ~Kerberos() { instance = nullptr; }

    Kdc kdc;
    static inline Kerberos* instance = nullptr;
};
BOOST_TEST_GLOBAL_FIXTURE(Kerberos);

}  // namespace

BOOST_AUTO_TEST_CASE(the_router_logs_in_by_kerberos_and_every_connection_it_opens_is_gssapi_encrypted) {
    const auto db = create_outbox_database("gss");
    const std::string topic = "gss.events";
    RouterProcess router(work_dir(), router_config_for(gss_conninfo(db), db, "  heartbeat.interval.ms: 200\n",
                                                       "metrics:\n  listen: \"127.0.0.1:" +
                                                           std::to_string(free_loopback_port()) + "\"\n",
                                                       "outbox:\n  route.topic.replacement: " + topic + "\n"));
    BOOST_REQUIRE_MESSAGE(router.wait_streaming(), router.output());
    Sql sql(postgres().conninfo(db));
    const std::string backends =
        "FROM pg_stat_activity a JOIN pg_stat_gssapi g USING (pid) WHERE a.application_name LIKE 'outbox-router%' "
        "AND a.pid <> pg_backend_pid()";
    // The walsender, the heartbeat's session and the slot monitor's (which runs for /metrics).
    BOOST_TEST(wait_until([&] {
        return sql.scalar("SELECT count(DISTINCT a.application_name || a.backend_type) " + backends) == "3";
    }, 30s), sql.rows("SELECT a.application_name, a.backend_type " + backends).size());
    BOOST_TEST(sql.scalar("SELECT count(*) " + backends + " AND NOT (g.encrypted AND g.gss_authenticated)") == "0");
    BOOST_TEST(sql.scalar("SELECT string_agg(DISTINCT g.principal, ',') " + backends) ==
               "postgres@" + Kerberos::instance->kdc.realm());
    sql.exec(outbox_rows_sql(0, 50, 3));
    const auto records = read_topic(kafka_servers(), topic, 50);
    BOOST_TEST(records.size() == 50u);
    std::set<int> seqs;
    for (const auto& record : records) seqs.insert(seq_of(record));
    BOOST_TEST(seqs.size() == 50u);
    BOOST_TEST(router.stop(SIGTERM) == 0);
}

// A backlog queued on the socket, read as the router reads it: each read must bring a batch of
// messages (GSSAPI encryption, like TLS, hands libpq one packet per PQconsumeInput), and the end of
// the backlog must come without more data from the server. libpq keeps what it decrypted beyond
// the room in its input buffer, where no socket readiness announces it: a read that left the
// backlog's last messages there would wait for the walsender's next keepalive.
BOOST_AUTO_TEST_CASE(a_queued_backlog_is_read_in_batches_and_to_its_end_over_gssapi_encryption) {
    struct Shape {
        int rows;
        int pad_bytes;
    };
    for (const Shape shape : {Shape{3000, 0}, Shape{300, 3000}, Shape{40, 40000}}) {
        BOOST_TEST_CONTEXT(shape.rows << " rows of " << shape.pad_bytes << " bytes of padding") {
            const auto source = outbox_source("gssbacklog");
            replication::PgConnection connection(gss_conninfo(source.db),
                                                 replication::PgConnection::Mode::logical_replication);
            BOOST_REQUIRE(PQgssEncInUse(connection.raw()) == 1);
            const int server_version = connection.server_version();
            replication::ReplicationStream stream(std::move(connection));
            stream.start(source.db, source.db, server_version);
            // Several transactions, so that the backlog ends with a commit after a full read.
            for (int i = 0; i < 4; ++i) source.sql->exec(padded_rows_sql(shape.rows / 4, shape.pad_bytes));
            const auto backlog = read_queued_backlog(stream, 4);
            BOOST_TEST_MESSAGE(backlog.frames << " frames in " << backlog.reads << " reads");
            BOOST_TEST(backlog.inserts == shape.rows);
            if (shape.pad_bytes == 0)
                BOOST_TEST(backlog.frames >= 20 * backlog.reads, backlog.frames << " frames in " << backlog.reads << " reads");
        }
    }
}
