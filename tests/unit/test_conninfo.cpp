#define BOOST_TEST_MODULE conninfo
#include <boost/test/unit_test.hpp>

#include <libpq-fe.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "outbox/config/config.hpp"
#include "outbox/config/conninfo.hpp"
#include "outbox/kafka/client_conf.hpp"
#include "outbox/replication/connection_settings.hpp"
#include "outbox/replication/pg_connection.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox;

// Secrets in postgres.conninfo (config/conninfo.hpp): whatever characters a ${file:} or ${env:}
// value holds, libpq reads exactly that value; what libpq could not read is refused at load
// without quoting any of the text.

namespace {

// Quote, backslash, blanks and '=' at once: each breaks a conninfo when inserted as is.
constexpr const char* kSecret = "o'k \\ s3cr=t x";

struct PropertiesFile {
    explicit PropertiesFile(const std::string& text)
        : path((std::filesystem::temp_directory_path() /
                ("outbox-conninfo-" + std::to_string(getpid()) + "-" + std::to_string(++count) + ".properties"))
                   .string()) {
        std::ofstream(path) << text;
    }
    ~PropertiesFile() { std::filesystem::remove(path); }
    std::string path;
    static inline int count = 0;
};

// The file the secrets come from, in Java properties syntax (a backslash written \\, a leading
// blank as "\ ").
const PropertiesFile& secrets() {
    static const PropertiesFile file("pg.password=o'k \\\\ s3cr=t x\n"
                                     "empty=\n"
                                     "blanks=\\  two  blanks \n"
                                     "quote='\n"
                                     "backslash=\\\\\n"
                                     "host=db.internal\n"
                                     "nul=a\\u0000b\n");
    return file;
}

std::string file_reference(const std::string& key) { return "${file:" + secrets().path + ":" + key + "}"; }

// `conninfo` as the text of postgres.conninfo (in YAML's single quotes, where '' is a quote).
config::Config parse_conninfo(const std::string& conninfo) {
    std::string scalar;
    for (const char c : conninfo) scalar += c == '\'' ? std::string("''") : std::string(1, c);
    return config::parse_config("postgres:\n  conninfo: '" + scalar + "'\nkafka:\n  bootstrap.servers: k:9092\n",
                                "router.yaml");
}

std::string error_of(const std::string& conninfo) {
    try {
        parse_conninfo(conninfo);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "(no error)";
}

// What libpq makes of `conninfo`: each keyword it was given, with its value.
std::map<std::string, std::string> libpq_reading(const std::string& conninfo) {
    char* message = nullptr;
    const std::unique_ptr<PQconninfoOption, decltype(&PQconninfoFree)> options(
        PQconninfoParse(conninfo.c_str(), &message), &PQconninfoFree);
    PQfreemem(message);
    BOOST_REQUIRE_MESSAGE(options, "libpq cannot read " + conninfo);
    std::map<std::string, std::string> values;
    for (const PQconninfoOption* o = options.get(); o->keyword; ++o)
        if (o->val) values[o->keyword] = o->val;
    return values;
}

std::string password_libpq_reads(const std::string& written) {
    return libpq_reading(parse_conninfo(written).postgres.conninfo)["password"];
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_file_secret_reaches_libpq_exactly_quoted_or_not) {
    const std::string reference = file_reference("pg.password");
    BOOST_TEST(password_libpq_reads("host=db password=" + reference) == kSecret);
    BOOST_TEST(password_libpq_reads("host=db password=" + reference + " port=5432") == kSecret);
    // As outbox-router import writes it.
    BOOST_TEST(password_libpq_reads("host=db password='" + reference + "'") == kSecret);
    BOOST_TEST(password_libpq_reads("host=db password = " + reference) == kSecret);
    BOOST_TEST(password_libpq_reads("password=pre-" + reference + "-post host=db") ==
               std::string("pre-") + kSecret + "-post");
    const auto settings = libpq_reading(parse_conninfo("host=" + file_reference("host") + " password=" + reference +
                                                       " dbname=app").postgres.conninfo);
    BOOST_TEST(settings.at("host") == "db.internal");
    BOOST_TEST(settings.at("dbname") == "app");
}

BOOST_AUTO_TEST_CASE(empty_blank_quote_and_backslash_secrets_reach_libpq_exactly) {
    BOOST_TEST(password_libpq_reads("host=db password=" + file_reference("empty")) == "");
    BOOST_TEST(password_libpq_reads("host=db password=" + file_reference("blanks")) == "  two  blanks ");
    BOOST_TEST(password_libpq_reads("host=db password=" + file_reference("quote")) == "'");
    BOOST_TEST(password_libpq_reads("host=db password=" + file_reference("backslash")) == "\\");
}

BOOST_AUTO_TEST_CASE(an_env_secret_reaches_libpq_exactly) {
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_SECRET", kSecret, 1) == 0);
    BOOST_TEST(password_libpq_reads("host=db password=${env:OUTBOX_TEST_PG_SECRET}") == kSecret);
    // The value is not expanded again.
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_SECRET", "a ${env:HOME}", 1) == 0);
    BOOST_TEST(password_libpq_reads("host=db password=${env:OUTBOX_TEST_PG_SECRET}") == "a ${env:HOME}");
}

// What libpq reads in a conninfo written without references stays what it was.
BOOST_AUTO_TEST_CASE(a_conninfo_without_references_means_what_it_meant) {
    BOOST_TEST(parse_conninfo("host=db dbname=app").postgres.conninfo == "host=db dbname=app");
    const auto settings = libpq_reading(
        parse_conninfo("host = db  password='it\\'s a\\\\b' application_name=a\\ b").postgres.conninfo);
    BOOST_TEST(settings.at("host") == "db");
    BOOST_TEST(settings.at("password") == "it's a\\b");
    BOOST_TEST(settings.at("application_name") == "a b");
    // No '=': libpq's database name.
    BOOST_TEST(libpq_reading(parse_conninfo("my db").postgres.conninfo).at("dbname") == "my db");
}

// A URI takes a reference's value percent-encoded, wherever it stands.
BOOST_AUTO_TEST_CASE(a_reference_in_a_uri_is_percent_encoded) {
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_APP", "my app/1", 1) == 0);
    const std::string conninfo =
        parse_conninfo("postgresql://outbox:" + file_reference("pg.password") +
                       "@db:5432/app?sslmode=require&application_name=${env:OUTBOX_TEST_PG_APP}")
            .postgres.conninfo;
    BOOST_TEST(conninfo.starts_with("postgresql://outbox:o%27k%20%5C%20s3cr%3Dt%20x@db:5432/app?"), conninfo);
    const auto settings = libpq_reading(conninfo);
    BOOST_TEST(settings.at("password") == kSecret);
    BOOST_TEST(settings.at("user") == "outbox");
    BOOST_TEST(settings.at("host") == "db");
    BOOST_TEST(settings.at("dbname") == "app");
    BOOST_TEST(settings.at("application_name") == "my app/1");
}

// A reference that is the whole conninfo holds the conninfo itself (DATABASE_URL).
BOOST_AUTO_TEST_CASE(a_reference_that_is_the_whole_conninfo_is_the_conninfo) {
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", "postgresql://outbox:o%27k@db/app", 1) == 0);
    BOOST_TEST(parse_conninfo("${env:OUTBOX_TEST_PG_URL}").postgres.conninfo == "postgresql://outbox:o%27k@db/app");
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", "host=db password='o\\'k ${env:HOME}'", 1) == 0);
    BOOST_TEST(password_libpq_reads("${env:OUTBOX_TEST_PG_URL}") == "o'k ${env:HOME}");
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", "app", 1) == 0);
    BOOST_TEST(libpq_reading(parse_conninfo("${env:OUTBOX_TEST_PG_URL}").postgres.conninfo).at("dbname") == "app");
}

// Each message names the line, the key and the setting by the keyword before it, and quotes
// nothing of the text, where a badly quoted password could stand.
BOOST_AUTO_TEST_CASE(a_conninfo_libpq_cannot_read_is_refused_without_quoting_it) {
    BOOST_TEST(error_of("host=db password=o'k s3cr=t") ==
               "router.yaml:2: postgres.conninfo: the setting after password=... names no libpq connection option "
               "(or the value before it holds a blank and needs single quotes)");
    BOOST_TEST(error_of("host=db s3cret") ==
               "router.yaml:2: postgres.conninfo: the setting after host=... is not keyword=value (a value holding "
               "blanks goes in single quotes, with \\' and \\\\ for a quote and a backslash in it)");
    BOOST_TEST(error_of("s3cret=x") ==
               "router.yaml:2: postgres.conninfo: the first setting names no libpq connection option (or the value "
               "before it holds a blank and needs single quotes)");
    BOOST_TEST(error_of("host=db password='s3cret") ==
               "router.yaml:2: postgres.conninfo: the quoted value of password has no closing quote");
    BOOST_TEST(error_of("${env:HOME} sslmode=require") ==
               "router.yaml:2: postgres.conninfo: the first setting is a reference where a keyword belongs: a "
               "reference stands for one value (password=${env:NAME}) or for the whole conninfo");
    BOOST_TEST(error_of("host=db password=" + file_reference("nul")) ==
               "router.yaml:2: postgres.conninfo: the value of password holds a NUL character, which libpq cannot take");
    BOOST_TEST(error_of("  ") == "router.yaml:2: postgres.conninfo: must not be empty");
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", " ", 1) == 0);
    BOOST_TEST(error_of("${env:OUTBOX_TEST_PG_URL}") ==
               "router.yaml:2: postgres.conninfo: ${env:OUTBOX_TEST_PG_URL} is empty");
    // libpq would say: invalid percent-encoded token: "s3cr%zz".
    BOOST_TEST(error_of("postgresql://u:s3cr%zz@db/app") ==
               "router.yaml:2: postgres.conninfo: libpq cannot read this connection URI (its message is left out: "
               "it quotes the URI, password included); check the percent-encoding (%XX), the port and the brackets "
               "around an IPv6 address");
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", "host=db password=o'k s3cr=t", 1) == 0);
    BOOST_TEST(error_of("${env:OUTBOX_TEST_PG_URL}") ==
               "router.yaml:2: postgres.conninfo: the conninfo in ${env:OUTBOX_TEST_PG_URL}: the setting after "
               "password=... names no libpq connection option (or the value before it holds a blank and needs "
               "single quotes)");
}

// A URL of a scheme libpq does not read (SQLAlchemy's, from a DATABASE_URL) would be a database
// name to libpq, and the server's "database ... does not exist" would quote it, password and all.
BOOST_AUTO_TEST_CASE(a_database_name_that_looks_like_a_url_is_refused_without_quoting_it) {
    const std::string advice = " holds \"://\" or \"@\", as a connection URL does: libpq reads only postgresql:// "
                               "and postgres:// URLs (not, e.g., SQLAlchemy's postgresql+psycopg2://) and would take "
                               "this one for a database name; write it as postgresql://... or as host=... dbname=... "
                               "settings";
    BOOST_TEST(error_of("postgresql+psycopg2://app:s3cret@db/app") ==
               "router.yaml:2: postgres.conninfo: the text (without '=', so a database name to libpq)" + advice);
    BOOST_TEST(error_of("app:s3cret@db") ==
               "router.yaml:2: postgres.conninfo: the text (without '=', so a database name to libpq)" + advice);
    BOOST_TEST(error_of("host=db dbname=jdbc:postgresql://db/app?password=s3cret") ==
               "router.yaml:2: postgres.conninfo: the value of dbname" + advice);
    BOOST_REQUIRE(setenv("OUTBOX_TEST_PG_URL", "postgresql+psycopg2://app:s3cret@db/app", 1) == 0);
    BOOST_TEST(error_of("${env:OUTBOX_TEST_PG_URL}") ==
               "router.yaml:2: postgres.conninfo: the conninfo in ${env:OUTBOX_TEST_PG_URL}: the text (without '=', "
               "so a database name to libpq)" + advice);
    BOOST_TEST(error_of("host=db dbname=" + std::string("${env:OUTBOX_TEST_PG_URL}")) ==
               "router.yaml:2: postgres.conninfo: the value of dbname" + advice);
    // libpq's own URIs and plain names still load.
    BOOST_TEST(error_of("postgresql://app:s3cret@db/app") == "(no error)");
    BOOST_TEST(error_of("app") == "(no error)");
    BOOST_TEST(error_of("host=db dbname=app") == "(no error)");
}

// Every other conninfo libpq is handed (a connection a test or a tool opens): refused before
// libpq can quote it.
BOOST_AUTO_TEST_CASE(a_connection_string_libpq_cannot_read_is_refused_without_quoting_it) {
    for (const std::string conninfo : {"host=127.0.0.1 password='s3cret", "host=127.0.0.1 s3cret",
                                       "postgresql://u:s3cr%zz@127.0.0.1/app"}) {
        try {
            replication::PgConnection connection(conninfo, replication::PgConnection::Mode::sql);
            BOOST_FAIL("connected with " + conninfo);
        } catch (const DefiniteError& e) {
            BOOST_TEST(std::string(e.what()).starts_with("postgres: cannot connect: libpq cannot read the connection "
                                                         "string"), e.what());
            BOOST_TEST(std::string(e.what()).find("s3cr") == std::string::npos, e.what());
        }
    }
    BOOST_TEST(config::libpq_reads("app"));
    BOOST_TEST(config::libpq_reads("host=db password='a\\'b'"));
}

// Side connections add their settings in the form the conninfo has.
BOOST_AUTO_TEST_CASE(added_settings_are_quoted_or_percent_encoded_as_the_form_needs) {
    const std::array<replication::ConnectionSetting, 2> settings{{{"application_name", "side 'one'"},
                                                                  {"connect_timeout", "5"}}};
    const auto key_value = libpq_reading(replication::with_settings("host=db password='a\\'b'", settings));
    BOOST_TEST(key_value.at("application_name") == "side 'one'");
    BOOST_TEST(key_value.at("password") == "a'b");
    const auto uri = libpq_reading(replication::with_settings("postgresql://u:a%27b@db/app", settings));
    BOOST_TEST(uri.at("application_name") == "side 'one'");
    BOOST_TEST(uri.at("password") == "a'b");
    BOOST_TEST(uri.at("connect_timeout") == "5");
}

BOOST_AUTO_TEST_CASE(values_are_written_plain_only_where_libpq_reads_them_so) {
    BOOST_TEST(config::conninfo_value("db.internal") == "db.internal");
    BOOST_TEST(config::conninfo_value("") == "''");
    BOOST_TEST(config::conninfo_value("a b") == "'a b'");
    BOOST_TEST(config::conninfo_value("it's") == "'it\\'s'");
    BOOST_TEST(config::conninfo_value("a\\b") == "'a\\\\b'");
    BOOST_TEST(config::conninfo_value("a=b") == "a=b");
    BOOST_TEST(config::uri_encoded("aZ09-._~ /:@%?&=") == "aZ09-._~%20%2F%3A%40%25%3F%26%3D");
}

// librdkafka takes a string property as it is: a secret from a file reaches sasl.password
// byte for byte (but for leading blanks, which librdkafka drops: docs/configuration.md).
BOOST_AUTO_TEST_CASE(a_file_secret_reaches_librdkafka_exactly) {
    const auto config = config::parse_config("postgres:\n  conninfo: app\nkafka:\n  bootstrap.servers: k:9092\n"
                                             "  sasl.password: '" + file_reference("pg.password") + "'\n",
                                             "router.yaml");
    const auto conf = kafka::client_conf(config.kafka, "", {});
    char value[256];
    std::size_t size = sizeof value;
    BOOST_REQUIRE(rd_kafka_conf_get(conf.get(), "sasl.password", value, &size) == RD_KAFKA_CONF_OK);
    BOOST_TEST(std::string(value) == kSecret);
    // No such property in librdkafka: refused by name, the value not quoted.
    config::KafkaSettings jaas;
    jaas.properties.push_back({"sasl.jaas.config", "PlainLoginModule required password=\"s3cret\";", {"k.yaml", 3}});
    try {
        kafka::client_conf(jaas, "", {});
        BOOST_FAIL("sasl.jaas.config accepted");
    } catch (const ConfigError& e) {
        BOOST_TEST(std::string(e.what()).starts_with("k.yaml:3: kafka.sasl.jaas.config: "), e.what());
        BOOST_TEST(std::string(e.what()).find("s3cret") == std::string::npos, e.what());
    }
}
