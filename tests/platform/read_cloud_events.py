"""Reads the router's CloudEvents records with the CloudEvents Python SDK (cloudevents on PyPI,
its strict v1 core) and compares each event with what the test expected.

Usage: read_cloud_events.py RECORDS.json, a list of
  {"mode": "structured"|"binary", "key": str|null, "value": str, "headers": [[name, value], ...],
   "expect": {"id", "source", "type", "subject" (or null), "time", "data", "data_schema"}}
(with data_schema, the event's data is {"schema": Debezium's Data struct, "payload": data}; a time
given as [earliest, latest] is a range the event's time must lie in, both ends included;
"extensions", when given, maps extension attribute names to the values the event must hold;
"refused", when given, is a text the SDK's error must contain: the record must be refused)
Prints "read N events" and exits 0 when every record was read as expected.
"""
import json
import sys

from cloudevents.core.bindings.kafka import KafkaMessage, from_binary, from_structured
from cloudevents.core.formats.json import JSONFormat
from cloudevents.core.v1.event import CloudEvent


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        records = json.load(f)
    failures = 0
    for number, record in enumerate(records):
        headers = {name: value.encode("utf-8") for name, value in record["headers"]}
        key = record["key"].encode("utf-8") if record["key"] is not None else None
        message = KafkaMessage(headers=headers, key=key, value=record["value"].encode("utf-8"))
        read = from_structured if record["mode"] == "structured" else from_binary
        expect = dict(record["expect"])
        refused = expect.pop("refused", None)
        try:
            event = read(message, JSONFormat(), CloudEvent)
        except Exception as e:  # the SDK refused the record: report it and go on
            if refused is None or refused not in str(e):
                print(f"record {number} ({record['mode']}): the SDK refused it: {type(e).__name__}: {e}")
                failures += 1
            continue
        if refused is not None:
            print(f"record {number} ({record['mode']}): the SDK read it, expected it refused for {refused!r}")
            failures += 1
            continue
        for name, value in expect.pop("extensions", {}).items():
            if event.get_extension(name) != value:
                print(f"record {number} ({record['mode']}): extension {name} is {event.get_extension(name)!r}, "
                      f"expected {value!r}")
                failures += 1
        data = event.get_data()
        if expect.pop("data_schema"):
            schema = data.get("schema", {}) if isinstance(data, dict) else {}
            if schema.get("name") != "io.debezium.connector.postgresql.Data" or schema.get("type") != "struct":
                print(f"record {number} ({record['mode']}): the data's schema is {schema!r}")
                failures += 1
            data = data.get("payload") if isinstance(data, dict) else data
        got = {
            "id": event.get_id(),
            "source": event.get_source(),
            "type": event.get_type(),
            "subject": event.get_subject(),
            "time": event.get_time().isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "specversion": event.get_specversion(),
            "datacontenttype": event.get_datacontenttype(),
            "data": data,
            "partitionkey": event.get_extension("partitionkey"),
        }
        if isinstance(expect["time"], list):
            earliest, latest = expect["time"]
            expect["time"] = got["time"] if earliest <= got["time"] <= latest else f"between {earliest} and {latest}"
        want = dict(expect, specversion="1.0", datacontenttype="application/json", partitionkey=record["key"])
        for name, value in want.items():
            if got[name] != value:
                print(f"record {number} ({record['mode']}): {name} is {got[name]!r}, expected {value!r}")
                failures += 1
    print(f"read {len(records)} events, {failures} differences")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
