#include "kdc.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "java_process.hpp"
#include "pg_server.hpp"

namespace outbox::test {
namespace {

bool accepts_connections(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<std::uint16_t>(port));
    const bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    return connected;
}

// A principal's name as a file name: postgres/localhost -> postgres_localhost.
std::string file_name_of(std::string principal) {
    for (char& c : principal)
        if (c == '/') c = '_';
    return principal;
}

}  // namespace

Kdc::Kdc(std::string realm) : realm_(std::move(realm)), dir_(make_temp_dir("outbox-kdc-")), port_(free_loopback_port()) {
    // PostgreSQL's user reads the server's keytab from here.
    chmod(dir_.c_str(), 0755);
    // No DNS: the service's host name is taken as written (postgres/localhost) and the realm's
    // KDC is the one below, over TCP (the KDC listens on the same port for both).
    write_file(dir_ + "/krb5.conf", "[libdefaults]\n"
                                    "  default_realm = " + realm_ + "\n"
                                    "  dns_lookup_kdc = false\n"
                                    "  dns_lookup_realm = false\n"
                                    "  dns_canonicalize_hostname = false\n"
                                    "  rdns = false\n"
                                    "  udp_preference_limit = 1\n"
                                    "[realms]\n"
                                    "  " + realm_ + " = {\n"
                                    "    kdc = 127.0.0.1:" + std::to_string(port_) + "\n"
                                    "  }\n"
                                    "[domain_realm]\n"
                                    "  localhost = " + realm_ + "\n");
    write_file(dir_ + "/kdc.conf", "[kdcdefaults]\n"
                                   "  kdc_ports = " + std::to_string(port_) + "\n"
                                   "  kdc_tcp_ports = " + std::to_string(port_) + "\n"
                                   "[realms]\n"
                                   "  " + realm_ + " = {\n"
                                   "    database_name = " + dir_ + "/principal\n"
                                   "    key_stash_file = " + dir_ + "/stash\n"
                                   "    acl_file = " + dir_ + "/kadm5.acl\n"
                                   "  }\n"
                                   "[logging]\n"
                                   "  kdc = FILE:" + dir_ + "/kdc.log\n"
                                   "  default = FILE:" + dir_ + "/kdc.log\n");
    setenv("KRB5_CONFIG", (dir_ + "/krb5.conf").c_str(), 1);
    setenv("KRB5_KDC_PROFILE", (dir_ + "/kdc.conf").c_str(), 1);
    run("kdb5_util create -s -r " + shell_quote(realm_) + " -P outbox-test-master-key");

    pid_ = fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execlp("krb5kdc", "krb5kdc", "-n", static_cast<char*>(nullptr));
        _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (!accepts_connections(port_)) {
        int status = 0;
        if (waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("krb5kdc exited: " + tail_of_file(dir_ + "/kdc.log", 20) +
                                     " (is krb5-kdc installed? scripts/install-deps.sh)");
        }
        if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("krb5kdc did not listen within 30 s");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

Kdc::~Kdc() {
    if (pid_ > 0) {
        kill(pid_, SIGTERM);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
    unsetenv("KRB5CCNAME");
    unsetenv("KRB5_CONFIG");
    unsetenv("KRB5_KDC_PROFILE");
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

void Kdc::run(const std::string& command) const {
    const std::string logged = command + " >>" + shell_quote(dir_ + "/admin.log") + " 2>&1";
    if (std::system(logged.c_str()) != 0)
        throw std::runtime_error("failed: " + command + ": " + tail_of_file(dir_ + "/admin.log", 10));
}

std::string Kdc::add_principal(const std::string& principal) {
    const std::string keytab = dir_ + "/" + file_name_of(principal) + ".keytab";
    run("kadmin.local -r " + shell_quote(realm_) + " -q " + shell_quote("addprinc -randkey " + principal));
    run("kadmin.local -r " + shell_quote(realm_) + " -q " + shell_quote("ktadd -k " + keytab + " " + principal));
    chmod(keytab.c_str(), 0644);
    return keytab;
}

void Kdc::log_in(const std::string& principal, const std::string& keytab) {
    const std::string cache = "FILE:" + dir_ + "/" + file_name_of(principal) + ".ccache";
    run("KRB5CCNAME=" + shell_quote(cache) + " kinit -k -t " + shell_quote(keytab) + " " +
        shell_quote(principal + "@" + realm_));
    setenv("KRB5CCNAME", cache.c_str(), 1);
}

}  // namespace outbox::test
