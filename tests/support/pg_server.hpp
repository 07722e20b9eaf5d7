#pragma once

#include <libpq-fe.h>

#include <string>
#include <vector>

#include "outbox/replication/pg_connection.hpp"
#include "test_ca.hpp"

namespace outbox::test {

struct PgServerOptions {
    std::string bin_dir;   // empty: OUTBOX_TEST_PG_BINDIR, else Debian's newest
    std::string copy_of;   // a stopped server's data directory to start from instead of initdb
    std::string settings;  // postgresql.auto.conf lines added before the first start
    bool standby = false;  // start in recovery (standby.signal)
};

// A throwaway PostgreSQL cluster for one test program: initdb into a temporary directory,
// wal_level=logical, a free loopback port, started with pg_ctl (as the postgres user when the
// tests run as root, because PostgreSQL refuses to run as root). Stopped and removed on exit.
//
// In production shape: ssl=on with a certificate from test_ca() for 127.0.0.1 and localhost, and
// the test CA as ssl_ca_file (for client-certificate authentication). pg_hba.conf is initdb's
// (trust on loopback, TLS or not) until a test sets its own.
class PgServer {
public:
    explicit PgServer(PgServerOptions options = {});
    ~PgServer();
    PgServer(const PgServer&) = delete;
    PgServer& operator=(const PgServer&) = delete;

    int port() const { return port_; }
    // The suite's default: TLS, the server verified against the test CA (sslmode=verify-full).
    std::string conninfo(const std::string& database) const;
    // Plain TCP (sslmode=disable), for a test that means to compare or needs no TLS.
    std::string plain_conninfo(const std::string& database) const;
    // host, port and dbname only (user postgres): for a test that sets every TLS option itself.
    std::string bare_conninfo(const std::string& database) const;

    // Creates a fresh database and returns its name.
    std::string create_database(const std::string& prefix);

    void restart();  // pg_ctl restart
    void stop();     // pg_ctl stop -m fast
    void start();
    // ALTER SYSTEM SET name = value, then reload the configuration.
    void set(const std::string& name, const std::string& value);
    // Presents `pair` as the server certificate from now on (reloads the configuration).
    void use_certificate(const CertifiedKey& pair);
    // Replaces pg_hba.conf with `rules` and reloads.
    void set_hba(const std::string& rules);
    std::string data_dir() const { return data_dir_; }

private:
    void run_as_owner(const std::string& command) const;
    void write_server_certificate(const CertifiedKey& pair) const;

    std::string bin_dir_;
    std::string base_dir_;
    std::string data_dir_;
    int port_ = 0;
    int next_database_ = 0;
};

// A plain SQL session for test set-up and assertions.
class Sql {
public:
    explicit Sql(const std::string& conninfo);
    void exec(const std::string& statement) const;
    std::string scalar(const std::string& query) const;  // first column of the first row ("" if NULL)
    std::vector<std::vector<std::string>> rows(const std::string& query) const;
    PGconn* raw() const { return connection_.raw(); }

private:
    replication::PgConnection connection_;
};

int free_loopback_port();
std::string shell_quote(const std::string& text);
std::string make_temp_dir(const std::string& prefix);
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace outbox::test
