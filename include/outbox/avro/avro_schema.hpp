#pragma once

#include <string>

#include "outbox/avro/avro_names.hpp"
#include "outbox/connect/connect_data.hpp"

namespace outbox::avro {

// The converter settings that change AvroData's mapping.
struct AvroDataOptions {
    bool connect_meta_data = true;  // connect.meta.data: the connect.* properties
    // enhanced.avro.schema.support changes only enums (and the reverse mapping); the router's
    // schemas have none, so it is accepted and changes nothing.
    bool enhanced_schema_support = false;
    NameAdjustment schema_names = NameAdjustment::none;  // schema.name.adjustment.mode
    NameAdjustment field_names = NameAdjustment::none;   // field.name.adjustment.mode
};

// The Avro schema Kafka Connect's AvroData (Confluent's converter) makes of a Connect schema,
// as Avro for Java writes it (Schema.toString(), the text AvroConverter registers):
//  - int8/int16 as int with connect.type, int32 int, int64 long, float32 float, float64 double;
//  - a struct as a record named by the schema's name (namespace: up to its last dot), an unnamed
//    one io.confluent.connect.avro.ConnectDefault, ConnectDefault2, ...; a record written again
//    as a reference to its name;
//  - optional as a union with null: null first with default null, or the type first where the
//    schema has a default (a struct's union always has null first);
//  - the Decimal logical type as bytes with scale and precision (connect.decimal.precision, or
//    38) and logicalType decimal; Date, Time and Timestamp as int/long with their logicalType;
//  - with connect.meta.data, properties connect.doc, connect.version, connect.parameters,
//    connect.default, connect.name and connect.type, in that order.
// Throws AvroNameError for a name Avro refuses under NameAdjustment::none.
std::string avro_schema_json(const connect::Schema& schema, const AvroDataOptions& options);

}  // namespace outbox::avro
