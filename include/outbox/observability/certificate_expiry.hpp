#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace outbox::observability {

// The earliest notAfter among the PEM certificates in the file at `path` (a chain or a CA bundle
// breaks when its first certificate expires), in seconds since the Unix epoch; nullopt when the
// file cannot be read or holds no certificate. Read with OpenSSL, as libpq and librdkafka read it.
std::optional<std::int64_t> earliest_not_after(const std::string& path);

}  // namespace outbox::observability
