"""Reads the router's Avro records with Confluent's own Python client and compares them with what
JsonConverter with schemas wrote for the same rows.

  avro_records.py compare BOOTSTRAP REGISTRY_URL AVRO_TOPIC JSON_TOPIC COUNT
      Decodes COUNT records of AVRO_TOPIC (keys and values, AvroDeserializer) and reads COUNT of
      JSON_TOPIC (JsonConverter with schemas); each JSON value is taken as the Connect value its
      schema says (Decimal, Date, Timestamp, Time, bytes), and both sides must be equal, record
      by record. Prints "equal N" or the first difference (exit status 1).
  avro_records.py old-reader BOOTSTRAP REGISTRY_URL TOPIC COUNT SCHEMA_ID
      Decodes every record with the registry's schema SCHEMA_ID as the reader's schema (a consumer
      that knows only that version) and prints one JSON value per line.
"""
import base64
import datetime
import decimal
import faulthandler
import io
import json
import struct
import sys
import uuid

from confluent_kafka import Consumer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext
import fastavro

EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def consume(bootstrap, topic, count):
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "avro-check-" + uuid.uuid4().hex,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False,
                         "isolation.level": "read_committed"})
    consumer.subscribe([topic])
    records = []
    deadline = datetime.datetime.now() + datetime.timedelta(seconds=90)
    while len(records) < count and datetime.datetime.now() < deadline:
        message = consumer.poll(1.0)
        if message is None or message.error():
            continue
        records.append(message)
    consumer.close()
    return records


def event_id(message):
    """The id header the EventRouter puts on every record: records of two topics are paired by it,
    since their keys (JSON text, Avro bytes) may land on different partitions."""
    for name, value in message.headers() or []:
        if name == "id":
            return value
    return None


def from_json(schema, value):
    """The Connect value JsonConverter wrote, in the types Avro's logical types decode to."""
    if value is None or schema is None:
        return value
    name = schema.get("name")
    kind = schema["type"]
    if name == "org.apache.kafka.connect.data.Decimal":
        unscaled = int.from_bytes(base64.b64decode(value), "big", signed=True)
        return decimal.Decimal(unscaled).scaleb(-int(schema["parameters"]["scale"]))
    if name == "org.apache.kafka.connect.data.Date":
        return datetime.date(1970, 1, 1) + datetime.timedelta(days=value)
    if name == "org.apache.kafka.connect.data.Timestamp":
        return EPOCH + datetime.timedelta(milliseconds=value)
    if name == "org.apache.kafka.connect.data.Time":
        return (datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=value)).time()
    if kind == "bytes":
        return base64.b64decode(value)
    if kind == "float":
        return struct.unpack("f", struct.pack("f", float(value)))[0]
    if kind == "double":
        return float(value)
    if kind == "struct":
        return {f["field"]: from_json(f, value.get(f["field"])) for f in schema["fields"]}
    if kind == "array":
        return [from_json(schema["items"], item) for item in value]
    return value


def json_side(raw):
    if raw is None:
        return None
    document = json.loads(raw)
    return from_json(document["schema"], document["payload"])


def printable(value):
    if isinstance(value, dict):
        return {k: printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [printable(v) for v in value]
    if isinstance(value, bytes):
        return "bytes:" + value.hex()
    if isinstance(value, (decimal.Decimal, datetime.date, datetime.time, datetime.datetime)):
        return type(value).__name__ + ":" + str(value)
    return value


def compare(bootstrap, registry_url, avro_topic, json_topic, count):
    registry = SchemaRegistryClient({"url": registry_url})
    # The topic strategy, as the router's default: the client's own default (ASSOCIATED) asks an
    # associations API that Apicurio does not have.
    deserializer = AvroDeserializer(registry, conf={"subject.name.strategy.type": "TOPIC"})
    avro_records = consume(bootstrap, avro_topic, count)
    json_records = consume(bootstrap, json_topic, count)
    if len(avro_records) != count or len(json_records) != count:
        print(f"read {len(avro_records)} Avro and {len(json_records)} JSON records, expected {count}")
        return 1
    by_id = {event_id(j): j for j in json_records}
    for i, a in enumerate(avro_records):
        j = by_id.get(event_id(a))
        if j is None:
            print(f"record {i}: no JSON record with id {event_id(a)!r}")
            return 1
        if a.value() is not None and a.value()[:1] != b"\x00":
            print(f"record {i}: no Confluent magic byte")
            return 1
        avro_key = None if a.key() is None else deserializer(a.key(), SerializationContext(avro_topic, MessageField.KEY))
        avro_value = None if a.value() is None else deserializer(a.value(), SerializationContext(avro_topic, MessageField.VALUE))
        json_key, json_value = json_side(j.key()), json_side(j.value())
        if avro_key != json_key or avro_value != json_value:
            print(f"record {i} differs:\n avro key {printable(avro_key)!r} value {printable(avro_value)!r}\n"
                  f" json key {printable(json_key)!r} value {printable(json_value)!r}")
            return 1
    print(f"equal {count}")
    return 0


def old_reader(bootstrap, registry_url, topic, count, schema_id):
    registry = SchemaRegistryClient({"url": registry_url})
    reader = fastavro.parse_schema(json.loads(registry.get_schema(schema_id).schema_str))
    for message in sorted(consume(bootstrap, topic, count), key=lambda m: (m.partition(), m.offset())):
        raw = message.value()
        writer_id = struct.unpack(">I", raw[1:5])[0]
        writer = fastavro.parse_schema(json.loads(registry.get_schema(writer_id).schema_str))
        value = fastavro.schemaless_reader(io.BytesIO(raw[5:]), writer, reader)
        print(json.dumps(printable(value), sort_keys=True))
    return 0


if __name__ == "__main__":
    # Never outlive the test that runs it; say where it was stuck.
    faulthandler.dump_traceback_later(150, exit=True)
    mode = sys.argv[1]
    if mode == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6])))
    if mode == "old-reader":
        sys.exit(old_reader(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])))
    sys.exit(f"unknown mode {mode}")
