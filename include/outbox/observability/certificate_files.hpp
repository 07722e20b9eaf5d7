#pragma once

#include <string>
#include <vector>

namespace outbox::config {
struct Config;
}

namespace outbox::observability {

// A certificate file the router reads when it connects, and the setting that names it, as
// "<section>.<key>" (postgres.sslrootcert, kafka.ssl.ca.location,
// value.converter.schema.registry.ssl.truststore.location, ...).
struct CertificateFile {
    std::string use;
    std::string path;
};

// Every PEM certificate file the configuration names, in configuration order: libpq's sslcert and
// sslrootcert (from postgres.conninfo, else PGSSLCERT and PGSSLROOTCERT, as libpq reads them;
// sslrootcert=system is the system's store, not a file), librdkafka's ssl.certificate.location
// and ssl.ca.location (probe is the system's store), and each Avro converter's registry
// truststore and keystore. Inline PEM and PKCS#12 keystores are not files it can read alone.
std::vector<CertificateFile> certificate_files(const config::Config& config);

}  // namespace outbox::observability
