import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;

import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;

import io.debezium.transforms.outbox.EventRouter;

// Debezium's EventRouter with table.expand.json.payload (Jackson's readTree and its schema
// inference) and Kafka Connect's converters, for tests/parity/test_payload_expansion.cpp. Each
// input line: a text payload as hexadecimal UTF-8. Each output line: the record's value as
// JsonConverter without schemas, JsonConverter with schemas and StringConverter write it, each
// as hexadecimal ("N" for no value, "X" when the converter throws).
public class ExpansionOracle {
    static final Schema AFTER = SchemaBuilder.struct().name("fz.public.outbox.Value")
            .field("id", Schema.STRING_SCHEMA)
            .field("aggregatetype", Schema.STRING_SCHEMA)
            .field("aggregateid", Schema.STRING_SCHEMA)
            .field("payload", Schema.OPTIONAL_STRING_SCHEMA)
            .optional().build();
    static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
            .field("connector", Schema.STRING_SCHEMA).build();
    static final Schema ENVELOPE = SchemaBuilder.struct().name("fz.public.outbox.Envelope")
            .field("before", AFTER).field("after", AFTER).field("source", SOURCE)
            .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();

    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        EventRouter<SourceRecord> router = new EventRouter<>();
        router.configure(Map.of("table.expand.json.payload", "true"));
        JsonConverter plain = new JsonConverter();
        plain.configure(Map.of("schemas.enable", "false"), false);
        JsonConverter schemas = new JsonConverter();
        schemas.configure(Map.of("schemas.enable", "true"), false);
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                String payload = new String(hex.parseHex(line), StandardCharsets.UTF_8);
                Struct after = new Struct(AFTER).put("id", "e1").put("aggregatetype", "x").put("aggregateid", "k1")
                        .put("payload", payload);
                Struct value = new Struct(ENVELOPE).put("after", after)
                        .put("source", new Struct(SOURCE).put("connector", "postgresql")).put("op", "c")
                        .put("ts_ms", 1L);
                SourceRecord routed = router.apply(new SourceRecord(Map.of(), Map.of(), "fz.public.outbox", null,
                        null, null, ENVELOPE, value));
                StringBuilder result = new StringBuilder();
                for (int i = 0; i < 3; ++i) {
                    if (i > 0) result.append(' ');
                    try {
                        byte[] bytes = i == 0 ? plain.fromConnectData(routed.topic(), routed.valueSchema(), routed.value())
                                : i == 1 ? schemas.fromConnectData(routed.topic(), routed.valueSchema(), routed.value())
                                : routed.value() == null ? null : routed.value().toString().getBytes(StandardCharsets.UTF_8);
                        result.append(bytes == null ? "N" : bytes.length == 0 ? "=" : hex.formatHex(bytes));
                    } catch (RuntimeException e) {
                        result.append('X');
                    }
                }
                out.write(result.append('\n').toString());
            }
        }
    }
}
