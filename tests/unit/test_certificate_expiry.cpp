#define BOOST_TEST_MODULE certificate_expiry
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "outbox/config/config.hpp"
#include "outbox/observability/certificate_expiry.hpp"
#include "outbox/observability/certificate_files.hpp"
#include "outbox/observability/metrics.hpp"
#include "pg_server.hpp"
#include "test_ca.hpp"

// The expiry of certificate files, read with OpenSSL from certificates the openssl command
// makes (TestCa: the CA for 30 days, client certificates for 7, an expired server certificate),
// checked against what `openssl x509 -enddate` says of the same file; the files a configuration
// names; and the gauge, read again at each scrape.

using namespace outbox;
using namespace outbox::observability;
using outbox::test::make_temp_dir;
using outbox::test::read_file;
using outbox::test::shell_quote;
using outbox::test::write_file;

namespace {

// The first certificate's notAfter as the openssl command prints it, through GNU date.
std::int64_t openssl_end_date(const std::string& path) {
    const auto dir = make_temp_dir("enddate");
    const std::string out = dir + "/seconds";
    const std::string command = "date -u -d \"$(openssl x509 -noout -enddate -in " + shell_quote(path) +
                                " | cut -d= -f2)\" +%s >" + out;
    const int status = std::system(command.c_str());
    BOOST_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const auto seconds = std::stoll(read_file(out));
    std::filesystem::remove_all(dir);
    return seconds;
}

// The value of the expiry gauge of `file` in a scrape, or -1 when it has none.
std::int64_t scraped_expiry(const std::string& scrape, const std::string& use, const std::string& file) {
    const std::string series =
        "outbox_router_tls_certificate_expiry_timestamp_seconds{use=\"" + use + "\",file=\"" + file + "\"} ";
    const auto at = scrape.find(series);
    if (at == std::string::npos) return -1;
    return std::stoll(scrape.substr(at + series.size()));
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_not_after_time_is_what_openssl_says_and_a_bundle_gives_its_earliest) {
    const test::TestCa ca("expiry test CA");
    const auto client = ca.client("expiry-client", "router");
    const auto ca_end = openssl_end_date(ca.certificate());
    const auto client_end = openssl_end_date(client.certificate);
    BOOST_TEST(earliest_not_after(ca.certificate()).value_or(0) == ca_end);
    BOOST_TEST(earliest_not_after(client.certificate).value_or(0) == client_end);
    const std::int64_t now = std::time(nullptr);
    BOOST_TEST(ca_end > now + 29 * 86400);
    BOOST_TEST(client_end < now + 8 * 86400);

    // A chain (leaf first) and a bundle (CA first) break at the leaf's expiry.
    const auto dir = make_temp_dir("bundle");
    write_file(dir + "/bundle.pem", read_file(ca.certificate()) + read_file(client.certificate));
    BOOST_TEST(earliest_not_after(dir + "/bundle.pem").value_or(0) == client_end);

    const auto expired = ca.expired_server("expired", {"localhost"});
    BOOST_TEST(earliest_not_after(expired.certificate).value_or(now) < now);
    BOOST_TEST(earliest_not_after(expired.certificate).value_or(0) == openssl_end_date(expired.certificate));

    // No certificate: a missing file, a key, text.
    BOOST_TEST(!earliest_not_after(dir + "/missing.pem"));
    BOOST_TEST(!earliest_not_after(client.key));
    write_file(dir + "/text.pem", "not a certificate\n");
    BOOST_TEST(!earliest_not_after(dir + "/text.pem"));
    std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(the_files_are_those_libpq_librdkafka_and_the_registry_client_read) {
    config::Config config;
    config.postgres.conninfo = "host=db dbname=app sslmode=verify-full sslrootcert='/run/ca dir/ca.crt' "
                               "sslcert=/run/pg/tls.crt sslkey=/run/pg/tls.key";
    config.kafka.properties = {{"bootstrap.servers", "k:9093", {}},
                               {"ssl.ca.location", "/run/kafka/ca.crt", {}},
                               {"ssl.certificate.location", "/run/kafka/tls.crt", {}}};
    config.format.value = config::Converter::avro;
    config.format.value_avro.ca_location = "/run/registry/ca.crt";
    const auto files = certificate_files(config);
    BOOST_REQUIRE(files.size() == 5u);
    BOOST_TEST(files[0].use == "postgres.sslcert");
    BOOST_TEST(files[0].path == "/run/pg/tls.crt");
    BOOST_TEST(files[1].use == "postgres.sslrootcert");
    BOOST_TEST(files[1].path == "/run/ca dir/ca.crt");
    BOOST_TEST(files[2].use == "kafka.ssl.ca.location");
    BOOST_TEST(files[3].use == "kafka.ssl.certificate.location");
    BOOST_TEST(files[4].use == "value.converter.schema.registry.ssl.truststore.location");
    BOOST_TEST(files[4].path == "/run/registry/ca.crt");

    // A URI's parameters; the system stores are not files; a registry of a converter not in use is not read.
    config.postgres.conninfo = "postgresql://db/app?sslmode=verify-full&sslrootcert=system";
    config.kafka.properties = {{"ssl.ca.location", "probe", {}}};
    config.format.value = config::Converter::json;
    ::unsetenv("PGSSLCERT");
    ::setenv("PGSSLROOTCERT", "/etc/pg/root.crt", 1);
    BOOST_TEST(certificate_files(config).empty());
    config.postgres.conninfo = "postgresql://db/app?sslmode=verify-full";
    const auto from_environment = certificate_files(config);
    BOOST_REQUIRE(from_environment.size() == 1u);
    BOOST_TEST(from_environment[0].use == "postgres.sslrootcert");
    BOOST_TEST(from_environment[0].path == "/etc/pg/root.crt");
    ::unsetenv("PGSSLROOTCERT");
}

// cert-manager replaces the file's content in place: the next scrape shows the new certificate.
BOOST_AUTO_TEST_CASE(each_scrape_reads_the_files_again) {
    const test::TestCa ca("rotation test CA");
    const auto first = ca.client("first", "router");
    const auto expired = ca.expired_server("old", {"localhost"});
    const auto dir = make_temp_dir("rotation");
    const std::string file = dir + "/tls.crt";
    write_file(file, read_file(expired.certificate));
    const Metrics metrics({{"kafka.ssl.certificate.location", file}, {"postgres.sslrootcert", dir + "/absent.crt"}});
    const auto before = metrics.render();
    BOOST_TEST(scraped_expiry(before, "kafka.ssl.certificate.location", file) == openssl_end_date(expired.certificate));
    BOOST_TEST(before.find("# TYPE outbox_router_tls_certificate_expiry_timestamp_seconds gauge\n") != std::string::npos);
    // A file that cannot be read has no sample.
    BOOST_TEST(before.find("absent.crt") == std::string::npos);

    write_file(file, read_file(first.certificate));
    BOOST_TEST(scraped_expiry(metrics.render(), "kafka.ssl.certificate.location", file) ==
               openssl_end_date(first.certificate));
    std::filesystem::remove_all(dir);
}
