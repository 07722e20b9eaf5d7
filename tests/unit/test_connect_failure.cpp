#define BOOST_TEST_MODULE connect_failure
#include <boost/test/unit_test.hpp>

#include "outbox/replication/pg_connection.hpp"

using outbox::replication::classify_connect_failure;
using outbox::replication::ConnectFailure;

// libpq's texts, as tests/integration/test_postgres_tls.cpp sees them from the real server.
BOOST_AUTO_TEST_CASE(a_server_certificate_that_fails_verification_is_named_as_such) {
    BOOST_TEST((classify_connect_failure("connection to server at \"127.0.0.1\", port 5432 failed: SSL error: "
                                         "certificate verify failed") == ConnectFailure::certificate));
    BOOST_TEST((classify_connect_failure("connection to server at \"127.0.0.1\", port 5432 failed: server certificate "
                                         "for \"db.example.com\" (and 1 other name) does not match host name "
                                         "\"127.0.0.1\"") == ConnectFailure::certificate));
}

BOOST_AUTO_TEST_CASE(refused_credentials_and_missing_client_files_are_definite) {
    BOOST_TEST((classify_connect_failure("... failed: FATAL:  connection requires a valid client certificate") ==
                ConnectFailure::definite));
    BOOST_TEST((classify_connect_failure("... failed: FATAL:  password authentication failed for user \"u\"") ==
                ConnectFailure::definite));
    BOOST_TEST((classify_connect_failure("root certificate file \"/x/ca.crt\" does not exist") == ConnectFailure::definite));
    BOOST_TEST((classify_connect_failure("could not load private key file \"k\": unsupported") == ConnectFailure::definite));
    BOOST_TEST((classify_connect_failure("... failed: server does not support SSL, but SSL was required") ==
                ConnectFailure::definite));
}

BOOST_AUTO_TEST_CASE(a_server_out_of_reach_or_starting_is_worth_retrying) {
    BOOST_TEST((classify_connect_failure("connection to server at \"127.0.0.1\", port 5432 failed: Connection refused") ==
                ConnectFailure::transient));
    BOOST_TEST((classify_connect_failure("... failed: FATAL:  the database system is starting up") ==
                ConnectFailure::transient));
    BOOST_TEST((classify_connect_failure("... failed: SSL SYSCALL error: EOF detected") == ConnectFailure::transient));
}

BOOST_AUTO_TEST_CASE(a_role_refused_for_a_missing_privilege_is_told_the_grant) {
    using outbox::replication::missing_privilege_advice;
    BOOST_TEST(missing_privilege_advice("FATAL:  must be superuser or replication role to start walsender") ==
               " (the role needs the REPLICATION attribute: ALTER ROLE <role> REPLICATION)");
    BOOST_TEST(missing_privilege_advice("FATAL:  permission denied to start WAL sender; DETAIL:  Only roles with the "
                                        "REPLICATION attribute may start a WAL sender process.") ==
               " (the role needs the REPLICATION attribute: ALTER ROLE <role> REPLICATION)");
    BOOST_TEST(missing_privilege_advice("FATAL:  permission denied for database \"app\"; DETAIL:  User does not have "
                                        "CONNECT privilege.") ==
               " (the role needs CONNECT on the database: GRANT CONNECT ON DATABASE <database> TO <role>)");
    BOOST_TEST(missing_privilege_advice("FATAL:  password authentication failed for user \"u\"").empty());
}
