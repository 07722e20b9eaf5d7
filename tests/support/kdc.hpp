#pragma once

#include <sys/types.h>

#include <string>

namespace outbox::test {

// A throwaway MIT Kerberos KDC for one test program (Debian's krb5-kdc, krb5-admin-server and
// krb5-user): a realm in a temporary directory (kdb5_util create), principals with random keys
// exported to keytabs (kadmin.local), and krb5kdc in the foreground on a free loopback port,
// stopped and removed with the object. While it lives, KRB5_CONFIG names its realm's krb5.conf in
// this process's environment, so libpq here and in every child (the router) finds the KDC.
class Kdc {
public:
    explicit Kdc(std::string realm = "OUTBOX.TEST");
    ~Kdc();
    Kdc(const Kdc&) = delete;
    Kdc& operator=(const Kdc&) = delete;

    const std::string& realm() const { return realm_; }
    int port() const { return port_; }

    // Adds `principal` (without the realm, e.g. "postgres/localhost") with a random key and
    // returns the path of a keytab holding it, readable by every user (the server's keytab is
    // read by PostgreSQL's own user).
    std::string add_principal(const std::string& principal);
    // kinit from the principal's keytab into a credentials cache of its own, made this process's
    // (KRB5CCNAME) and so its children's.
    void log_in(const std::string& principal, const std::string& keytab);

private:
    void run(const std::string& command) const;

    std::string realm_;
    std::string dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace outbox::test
