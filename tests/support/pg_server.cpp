#include "pg_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace outbox::test {
namespace {

std::string find_bin_dir() {
    if (const char* env = std::getenv("OUTBOX_TEST_PG_BINDIR")) return env;
    namespace fs = std::filesystem;
    std::string best;
    if (fs::exists("/usr/lib/postgresql"))
        for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql"))
            if (fs::exists(entry.path() / "bin" / "initdb") && entry.path().string() > best) best = entry.path().string();
    if (best.empty()) throw std::runtime_error("PostgreSQL server binaries not found (install postgresql)");
    return best + "/bin";
}

void run(const std::string& command) {
    if (std::system(command.c_str()) != 0) throw std::runtime_error("command failed: " + command);
}

}  // namespace

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string make_temp_dir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    return pattern;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path);
}

int free_loopback_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        close(fd);
        throw std::runtime_error("cannot find a free port");
    }
    close(fd);
    return ntohs(address.sin_port);
}

PgServer::PgServer(PgServerOptions options)
    : bin_dir_(options.bin_dir.empty() ? find_bin_dir() : options.bin_dir),
      base_dir_(make_temp_dir("outbox-pg-")),
      port_(free_loopback_port()) {
    data_dir_ = base_dir_ + "/data";
    if (geteuid() == 0) run("chown postgres:postgres " + shell_quote(base_dir_));
    if (options.copy_of.empty())  // --no-sync: a throw-away server, run with fsync off as well
        run_as_owner(bin_dir_ + "/initdb --no-sync -D " + shell_quote(data_dir_) + " -U postgres -A trust -E UTF8 --locale=C.UTF-8 >" +
                     shell_quote(base_dir_ + "/initdb.log") + " 2>&1");
    else  // the copy's slots are the original's
        run_as_owner("cp -a " + shell_quote(options.copy_of) + " " + shell_quote(data_dir_) + " && rm -rf " +
                     shell_quote(data_dir_ + "/postmaster.pid") + " " + shell_quote(data_dir_) + "/pg_replslot/*");
    if (options.standby) write_file(data_dir_ + "/standby.signal", "");
    std::ofstream conf(data_dir_ + "/postgresql.auto.conf", std::ios::app);
    conf << "listen_addresses = '127.0.0.1'\n"
         << "port = " << port_ << "\n"
         << "unix_socket_directories = '" << base_dir_ << "'\n"
         << "wal_level = logical\n"
         << "max_wal_senders = 20\n"
         << "max_replication_slots = 20\n"
         << "fsync = off\n"
         << "synchronous_commit = off\n"
         << "full_page_writes = off\n"
         << "wal_sender_timeout = '60s'\n"
         << "ssl = on\n"
         << "ssl_ca_file = '" << test_ca().certificate() << "'\n"
         << options.settings;
    conf.close();
    write_server_certificate(test_ca().server("postgres-" + std::to_string(port_), {"127.0.0.1", "localhost"}));
    run_as_owner(bin_dir_ + "/pg_ctl -D " + shell_quote(data_dir_) + " -l " + shell_quote(base_dir_ + "/server.log") +
                 " -w -t 60 start >/dev/null");
}

PgServer::~PgServer() {
    const std::string stop = bin_dir_ + "/pg_ctl -D " + shell_quote(data_dir_) + " -m immediate -w stop >/dev/null 2>&1";
    try {
        run_as_owner(stop);
    } catch (...) {
    }
    std::error_code ignored;
    std::filesystem::remove_all(base_dir_, ignored);
}

void PgServer::run_as_owner(const std::string& command) const {
    if (geteuid() == 0)
        run("runuser -u postgres -- sh -c " + shell_quote(command));
    else
        run(command);
}

void PgServer::restart() {
    run_as_owner(bin_dir_ + "/pg_ctl -D " + shell_quote(data_dir_) + " -l " + shell_quote(base_dir_ + "/server.log") +
                 " -m fast -w -t 60 restart >/dev/null");
}

void PgServer::stop() {
    run_as_owner(bin_dir_ + "/pg_ctl -D " + shell_quote(data_dir_) + " -m fast -w -t 60 stop >/dev/null");
}

void PgServer::start() {
    run_as_owner(bin_dir_ + "/pg_ctl -D " + shell_quote(data_dir_) + " -l " + shell_quote(base_dir_ + "/server.log") +
                 " -w -t 60 start >/dev/null");
}

void PgServer::set(const std::string& name, const std::string& value) {
    Sql sql(conninfo("postgres"));
    sql.exec("ALTER SYSTEM SET " + name + " = '" + value + "'");
    sql.exec("SELECT pg_reload_conf()");
}

// The server reads its certificate from ssl_cert_file and ssl_key_file, set once; a change of
// certificate is a change of what those files hold.
// The server refuses a key file that others can read or that it does not own.
void PgServer::write_server_certificate(const CertifiedKey& pair) const {
    const std::string certificate = shell_quote(data_dir_ + "/server.crt");
    const std::string key = shell_quote(data_dir_ + "/server.key");
    run("cp " + shell_quote(pair.certificate) + " " + certificate + " && cp " + shell_quote(pair.key) + " " + key +
        " && chmod 600 " + key);
    if (geteuid() == 0) run("chown postgres:postgres " + certificate + " " + key);
}

void PgServer::use_certificate(const CertifiedKey& pair) {
    write_server_certificate(pair);
    Sql(plain_conninfo("postgres")).exec("SELECT pg_reload_conf()");
}

void PgServer::set_hba(const std::string& rules) {
    write_file(data_dir_ + "/pg_hba.conf", rules);
    Sql(plain_conninfo("postgres")).exec("SELECT pg_reload_conf()");
}

std::string PgServer::bare_conninfo(const std::string& database) const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " user=postgres dbname=" + database;
}

std::string PgServer::conninfo(const std::string& database) const {
    return bare_conninfo(database) + " sslmode=verify-full sslrootcert=" + test_ca().certificate();
}

std::string PgServer::plain_conninfo(const std::string& database) const {
    return bare_conninfo(database) + " sslmode=disable";
}

std::string PgServer::create_database(const std::string& prefix) {
    const std::string name = prefix + "_" + std::to_string(++next_database_);
    Sql(conninfo("postgres")).exec("CREATE DATABASE " + name);
    return name;
}

Sql::Sql(const std::string& conninfo) : connection_(conninfo, replication::PgConnection::Mode::sql) {}

void Sql::exec(const std::string& statement) const { connection_.exec(statement, statement.substr(0, 80)); }

std::string Sql::scalar(const std::string& query) const {
    const auto result = connection_.exec(query, query.substr(0, 80));
    if (PQntuples(result.get()) == 0 || PQgetisnull(result.get(), 0, 0)) return {};
    return PQgetvalue(result.get(), 0, 0);
}

std::vector<std::vector<std::string>> Sql::rows(const std::string& query) const {
    const auto result = connection_.exec(query, query.substr(0, 80));
    std::vector<std::vector<std::string>> out;
    for (int r = 0; r < PQntuples(result.get()); ++r) {
        auto& row = out.emplace_back();
        for (int c = 0; c < PQnfields(result.get()); ++c) row.emplace_back(PQgetvalue(result.get(), r, c));
    }
    return out;
}

}  // namespace outbox::test
