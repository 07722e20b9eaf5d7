#include "test_ca.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "pg_server.hpp"

namespace outbox::test {
namespace {

void run(const std::string& command) {
    if (std::system(("(" + command + ") >/dev/null 2>&1").c_str()) != 0)
        throw std::runtime_error("test CA: command failed: " + command);
}

bool is_ip_address(const std::string& host) {
    return host.find(':') != std::string::npos || host.find_first_not_of("0123456789.") == std::string::npos;
}

std::string subject_alt_name(const std::vector<std::string>& hosts) {
    std::string names;
    for (const auto& host : hosts) names += (names.empty() ? "" : ",") + std::string(is_ip_address(host) ? "IP:" : "DNS:") + host;
    return names;
}

// `openssl ca` rather than `openssl x509 -req`: only it sets a start date in the past, which an
// expired certificate needs.
const char* const kCaConfig =
    "[ca]\n"
    "default_ca = test\n"
    "[test]\n"
    "database = index.txt\n"
    "new_certs_dir = issued\n"
    "serial = serial\n"
    "default_md = sha256\n"
    "unique_subject = no\n"
    "policy = any\n"
    "[any]\n"
    "commonName = supplied\n";

}  // namespace

TestCa::TestCa(const std::string& name) : dir_(make_temp_dir("outbox-ca-")) {
    chmod(dir_.c_str(), 0755);
    std::filesystem::create_directory(dir_ + "/issued");
    write_file(dir_ + "/ca.cnf", kCaConfig);
    write_file(dir_ + "/index.txt", "");
    write_file(dir_ + "/serial", "1000\n");
    ca_ = {dir_ + "/ca.crt", dir_ + "/ca.key"};
    run("cd " + shell_quote(dir_) +
        " && openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30"
        " -keyout ca.key -out ca.crt -subj " + shell_quote("/CN=" + name) +
        " -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign"
        " && chmod 600 ca.key && chmod 644 ca.crt");
}

TestCa::~TestCa() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

CertifiedKey TestCa::sign(const std::string& file_stem, const std::string& subject, const std::string& extensions,
                          const std::string& validity, const std::string& key_owner) const {
    const CertifiedKey pair{dir_ + "/" + file_stem + ".crt", dir_ + "/" + file_stem + ".key"};
    write_file(dir_ + "/" + file_stem + ".ext", extensions);
    run("cd " + shell_quote(dir_) +
        " && openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout " +
        shell_quote(file_stem + ".key") + " -out " + shell_quote(file_stem + ".csr") + " -subj " + shell_quote(subject) +
        " && openssl ca -batch -config ca.cnf -cert ca.crt -keyfile ca.key -notext " + validity + " -extfile " +
        shell_quote(file_stem + ".ext") + " -in " + shell_quote(file_stem + ".csr") + " -out " +
        shell_quote(file_stem + ".crt") + " && chmod 644 " + shell_quote(file_stem + ".crt") + " && chmod 600 " +
        shell_quote(file_stem + ".key"));
    if (!key_owner.empty() && geteuid() == 0) run("chown " + shell_quote(key_owner) + " " + shell_quote(pair.key));
    return pair;
}

CertifiedKey TestCa::server(const std::string& file_stem, const std::vector<std::string>& hosts,
                            const std::string& key_owner) const {
    if (hosts.empty()) throw std::invalid_argument("test CA: a server certificate needs a host");
    return sign(file_stem, "/CN=" + hosts.front(),
                "subjectAltName = " + subject_alt_name(hosts) + "\nextendedKeyUsage = serverAuth\n", "-days 7", key_owner);
}

CertifiedKey TestCa::expired_server(const std::string& file_stem, const std::vector<std::string>& hosts,
                                    const std::string& key_owner) const {
    if (hosts.empty()) throw std::invalid_argument("test CA: a server certificate needs a host");
    return sign(file_stem, "/CN=" + hosts.front(),
                "subjectAltName = " + subject_alt_name(hosts) + "\nextendedKeyUsage = serverAuth\n",
                "-startdate 20200101000000Z -enddate 20200201000000Z", key_owner);
}

CertifiedKey TestCa::client(const std::string& file_stem, const std::string& common_name,
                            const std::string& key_owner) const {
    return sign(file_stem, "/CN=" + common_name, "extendedKeyUsage = clientAuth\n", "-days 7", key_owner);
}

std::string TestCa::pkcs12_keystore(const CertifiedKey& pair, const std::string& password) const {
    const std::string path = pair.certificate.substr(0, pair.certificate.size() - 4) + ".p12";
    run("openssl pkcs12 -export -name key -in " + shell_quote(pair.certificate) + " -inkey " + shell_quote(pair.key) +
        " -certfile " + shell_quote(ca_.certificate) + " -out " + shell_quote(path) + " -passout " +
        shell_quote("pass:" + password));
    chmod(path.c_str(), 0644);
    return path;
}

std::string TestCa::pkcs12_truststore(const std::string& password) const {
    const std::string path = dir_ + "/truststore.p12";
    std::filesystem::remove(path);
    run("keytool -importcert -noprompt -alias ca -storetype PKCS12 -file " + shell_quote(ca_.certificate) +
        " -keystore " + shell_quote(path) + " -storepass " + shell_quote(password));
    chmod(path.c_str(), 0644);
    return path;
}

std::string TestCa::pem_keystore(const CertifiedKey& pair) const {
    const std::string path = pair.certificate.substr(0, pair.certificate.size() - 4) + ".keystore.pem";
    write_file(path, read_file(pair.key) + read_file(pair.certificate) + read_file(ca_.certificate));
    chmod(path.c_str(), 0600);
    return path;
}

TestCa& test_ca() {
    static TestCa ca;
    return ca;
}

}  // namespace outbox::test
