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

// A newer instance with the same transactional.id took the exactly-once producer over (Kafka
// fenced this one): a definite error with an exit status of its own (3), so that an alert can tell
// it apart from the others after the process is gone (kube-state-metrics keeps a container's last
// exit code; nothing the process itself exports outlives it).
class ProducerFencedError : public DefiniteError {
public:
    using DefiniteError::DefiniteError;
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
