#pragma once

#include <string>
#include <vector>

namespace outbox::test {

// A certificate and its private key, as PEM files.
struct CertifiedKey {
    std::string certificate;
    std::string key;
};

// A test certificate authority, made with the openssl command at set-up in a temporary directory
// (removed with it). It signs server certificates for given host names and addresses, client
// certificates for a given CN, and the bad certificates the failure tests need: one for another
// host name, an expired one, and any certificate from a second, unrelated TestCa.
//
// Keys are EC P-256 (quick to make), each written 0600 and owned by the user given (a PostgreSQL
// server running as `postgres` must own its key; libpq refuses a client key others can read).
// The directory and the certificates are world-readable, so any test user can read the CA.
class TestCa {
public:
    explicit TestCa(const std::string& name = "outbox test CA");
    ~TestCa();
    TestCa(const TestCa&) = delete;
    TestCa& operator=(const TestCa&) = delete;

    const std::string& dir() const { return dir_; }
    // The CA's certificate (PEM): what a client's sslrootcert / ssl.ca.location names.
    const std::string& certificate() const { return ca_.certificate; }

    // A server certificate for `hosts` (DNS names or IPv4/IPv6 addresses), all in the subject
    // alternative name, the first also the CN; valid from now for a few days.
    CertifiedKey server(const std::string& file_stem, const std::vector<std::string>& hosts,
                        const std::string& key_owner = "") const;
    // The same, but its validity ended before today.
    CertifiedKey expired_server(const std::string& file_stem, const std::vector<std::string>& hosts,
                                const std::string& key_owner = "") const;
    // A client certificate with `common_name` as its CN (PostgreSQL's cert authentication maps it
    // to the role of that name; Kafka takes it as the principal "CN=<name>").
    CertifiedKey client(const std::string& file_stem, const std::string& common_name,
                        const std::string& key_owner = "") const;

    // For a Java (Kafka) peer: a PKCS12 keystore holding `pair` (alias "key", its chain up to this
    // CA), and a PKCS12 truststore holding this CA's certificate (alias "ca"), each protected by
    // `password`. Kafka also takes PEM directly (ssl.keystore.type=PEM): pem_keystore() writes
    // the key (PKCS#8, unencrypted) followed by the certificate chain into one file.
    std::string pkcs12_keystore(const CertifiedKey& pair, const std::string& password) const;
    std::string pkcs12_truststore(const std::string& password) const;
    std::string pem_keystore(const CertifiedKey& pair) const;

private:
    CertifiedKey sign(const std::string& file_stem, const std::string& subject, const std::string& extensions,
                      const std::string& validity, const std::string& key_owner) const;

    std::string dir_;
    CertifiedKey ca_;
    mutable int next_serial_ = 1;
};

// The CA every test in this program shares: PgServer's certificates and the brokers' come from it,
// so one sslrootcert / ssl.ca.location trusts them all.
TestCa& test_ca();

}  // namespace outbox::test
