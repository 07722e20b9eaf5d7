#pragma once

#include <stdexcept>
#include <string>

namespace outbox {

// Retrying cannot fix it (bad config, lost slot, bad row): the process exits 1 with the message.
class DefiniteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Configuration problems; the message starts with "file:line: ".
class ConfigError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
};

// A configuration that is not YAML at all (as opposed to YAML with a wrong key or value).
class YamlSyntaxError : public ConfigError {
public:
    using ConfigError::ConfigError;
};

// Bytes from the server that do not follow the protocol; the message names the type byte and WAL position.
class ProtocolError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
};

// A connection dropped or a peer is briefly unavailable: retried with backoff.
class TransientError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace outbox
