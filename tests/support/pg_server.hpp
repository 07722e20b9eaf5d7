#pragma once

#include <libpq-fe.h>

#include <string>
#include <vector>

#include "outbox/replication/pg_connection.hpp"

namespace outbox::test {

// A throwaway PostgreSQL cluster for one test program: initdb into a temporary directory,
// wal_level=logical, a free loopback port, started with pg_ctl (as the postgres user when the
// tests run as root, because PostgreSQL refuses to run as root). Stopped and removed on exit.
class PgServer {
public:
    PgServer();
    ~PgServer();
    PgServer(const PgServer&) = delete;
    PgServer& operator=(const PgServer&) = delete;

    int port() const { return port_; }
    std::string conninfo(const std::string& database) const;

    // Creates a fresh database and returns its name.
    std::string create_database(const std::string& prefix);

    void restart();  // pg_ctl restart
    void stop();     // pg_ctl stop -m fast
    void start();
    // ALTER SYSTEM SET name = value, then reload the configuration.
    void set(const std::string& name, const std::string& value);
    // Turns TLS on with a fresh self-signed certificate; clients choose it with sslmode.
    void enable_tls();
    std::string data_dir() const { return data_dir_; }

private:
    void run_as_owner(const std::string& command) const;

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
