"""Reads the router's Avro records with Confluent's own Python client and compares them with what
JsonConverter with schemas wrote for the same rows.

  avro_records.py compare BOOTSTRAP REGISTRY_URL AVRO_TOPIC JSON_TOPIC COUNT[:JSON_COUNT]
      Decodes COUNT records of AVRO_TOPIC (keys and values, AvroDeserializer) and reads COUNT (or
      JSON_COUNT) of JSON_TOPIC (JsonConverter with schemas); each JSON value is taken as the Connect value its
      schema says (Decimal, Date, Timestamp, Time, bytes), and both sides must be equal, record
      by record. Apache Avro for Java (AvroJavaReader.java, run with the java binary and the jars
      of $AVRO_JAVA and $AVRO_JAVA_LIBS) decodes the same bytes, each writer schema fetched by its
      id, and must give the same values too. Prints "equal N" or the first difference (exit status 1).
  The registry's TLS, when its URL is https: $REGISTRY_CA (PEM), and a client certificate in
  $REGISTRY_CERT/$REGISTRY_KEY (PEM, for Python) and $REGISTRY_P12 (PKCS12, password "secret", for Java);
  its basic authentication: $REGISTRY_USER_INFO (user:password).
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
import os
import struct
import subprocess
import sys
import tempfile
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


def registry_client(registry_url):
    conf = {"url": registry_url}
    if os.environ.get("REGISTRY_CA"):
        conf["ssl.ca.location"] = os.environ["REGISTRY_CA"]
    if os.environ.get("REGISTRY_USER_INFO"):
        conf["basic.auth.user.info"] = os.environ["REGISTRY_USER_INFO"]
    if os.environ.get("REGISTRY_CERT"):
        conf["ssl.certificate.location"] = os.environ["REGISTRY_CERT"]
        conf["ssl.key.location"] = os.environ["REGISTRY_KEY"]
    return SchemaRegistryClient(conf)


def from_java(value):
    """A value AvroJavaReader printed, in the types Avro's logical types decode to in Python."""
    if isinstance(value, list):
        return [from_java(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (tag, inner), = value.items()
        if tag == "$bytes":
            return bytes.fromhex(inner)
        if tag == "$decimal":
            return decimal.Decimal(int(inner[0])).scaleb(-inner[1])
        if tag == "$date":
            return datetime.date(1970, 1, 1) + datetime.timedelta(days=inner)
        if tag in ("$time_ms", "$time_us"):
            unit = 1000 if tag == "$time_ms" else 1
            return (datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=inner * unit)).time()
        if tag in ("$timestamp_ms", "$timestamp_us"):
            unit = 1000 if tag == "$timestamp_ms" else 1
            return EPOCH + datetime.timedelta(microseconds=inner * unit)
        if tag == "$double":
            return float(inner)
    return {k: from_java(v) for k, v in value.items()}


def java_decoded(registry_url, records):
    """Keys and values as Apache Avro for Java decodes them, record by record."""
    with tempfile.TemporaryDirectory() as scratch:
        given, decoded = os.path.join(scratch, "in.txt"), os.path.join(scratch, "out.txt")
        with open(given, "w") as f:
            for r in records:
                f.write(" ".join("-" if b is None else b.hex() for b in (r.key(), r.value())) + "\n")
        command = [os.environ["AVRO_JAVA"], "-cp", os.environ["AVRO_JAVA_LIBS"] + "/*",
                   os.path.join(os.path.dirname(os.path.abspath(__file__)), "AvroJavaReader.java"),
                   registry_url, given, decoded]
        if os.environ.get("REGISTRY_CA"):
            command.append(os.environ["REGISTRY_CA"])
            if os.environ.get("REGISTRY_P12"):
                command += [os.environ["REGISTRY_P12"], "secret"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError("AvroJavaReader failed: " + done.stderr[-2000:])
        with open(decoded) as f:
            return [json.loads(line) for line in f if line.strip()]


def compare(bootstrap, registry_url, avro_topic, json_topic, counts):
    count, _, json_count = counts.partition(":")
    count = int(count)
    json_count = int(json_count or count)
    registry = registry_client(registry_url)
    # The topic strategy, as the router's default: the client's own default (ASSOCIATED) asks an
    # associations API that Apicurio does not have.
    deserializer = AvroDeserializer(registry, conf={"subject.name.strategy.type": "TOPIC"})
    avro_records = consume(bootstrap, avro_topic, count)
    json_records = consume(bootstrap, json_topic, json_count)
    if len(avro_records) != count or len(json_records) != json_count:
        print(f"read {len(avro_records)} Avro and {len(json_records)} JSON records, expected {count} and {json_count}")
        return 1
    by_id = {event_id(j): j for j in json_records}
    java = java_decoded(registry_url, avro_records)
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
        java_key, java_value = from_java(java[i]["key"]), from_java(java[i]["value"])
        if java_key != json_key or java_value != json_value:
            print(f"record {i}: Apache Avro for Java decodes differently:\n java key {printable(java_key)!r} value "
                  f"{printable(java_value)!r}\n json key {printable(json_key)!r} value {printable(json_value)!r}")
            return 1
    print(f"equal {count}")
    return 0


def old_reader(bootstrap, registry_url, topic, count, schema_id):
    registry = registry_client(registry_url)
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
        sys.exit(compare(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]))
    if mode == "old-reader":
        sys.exit(old_reader(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])))
    sys.exit(f"unknown mode {mode}")
