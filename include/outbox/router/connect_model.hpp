#pragma once

// The router routes rows in Kafka Connect's data model as Debezium's connector fills it
// (outbox/connect/: column values, schemas, converters, Java's texts); its names are the router's.
namespace outbox::connect {}

namespace outbox::router {
using namespace outbox::connect;
}  // namespace outbox::router
