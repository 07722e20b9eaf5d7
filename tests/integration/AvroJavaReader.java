// Apache Avro for Java reads the router's records: each record's writer schema is fetched by its
// id from the registry (GET /schemas/ids/{id}) and the body decoded with GenericDatumReader, with
// Avro's own logical-type conversions (decimal, date, time, timestamp).
//
//   java -cp '<avro-runtime>/*' AvroJavaReader.java REGISTRY_URL IN OUT [CA_PEM [CLIENT_P12 PASSWORD]]
//
// IN: one record per line, its key and value in hex ("-" for null). OUT: one JSON line per record,
// {"key": .., "value": ..}: records as objects, arrays, maps, strings, numbers; what JSON cannot
// hold as tagged objects: {"$bytes": hex}, {"$decimal": [unscaled, scale]}, {"$date": days},
// {"$time_ms": ms}, {"$time_us": us}, {"$timestamp_ms": ms}, {"$timestamp_us": us}, {"$double": "NaN"}.
// A record that is not in Confluent's wire format, or whose schema the registry does not give,
// fails the program (exit status 1) with the reason on standard error. $REGISTRY_USER_INFO
// (user:password), when set, is sent as HTTP basic authentication.

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.FileInputStream;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.data.TimeConversions;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;

public class AvroJavaReader {
    private static final HexFormat HEX = HexFormat.of();

    private final HttpClient http;
    private final String registry;
    private final Map<Integer, Schema> schemas = new HashMap<>();
    private final GenericData data = new GenericData();

    AvroJavaReader(String registry, HttpClient http) {
        this.registry = registry.replaceAll("/+$", "");
        this.http = http;
        data.addLogicalTypeConversion(new Conversions.DecimalConversion());
        data.addLogicalTypeConversion(new TimeConversions.DateConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimeMicrosConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMillisConversion());
        data.addLogicalTypeConversion(new TimeConversions.TimestampMicrosConversion());
    }

    Schema writerSchema(int id) throws Exception {
        Schema known = schemas.get(id);
        if (known != null) return known;
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(registry + "/schemas/ids/" + id))
                .timeout(Duration.ofSeconds(10)).GET();
        String userInfo = System.getenv("REGISTRY_USER_INFO");
        if (userInfo != null && !userInfo.isEmpty())
            request.header("Authorization", "Basic " + Base64.getEncoder().encodeToString(userInfo.getBytes(StandardCharsets.UTF_8)));
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200)
            throw new IllegalStateException("schema " + id + ": HTTP " + answer.statusCode() + " " + answer.body());
        String text = new ObjectMapper().readTree(answer.body()).get("schema").asText();
        Schema schema = new Schema.Parser().parse(text);
        schemas.put(id, schema);
        return schema;
    }

    Object decode(byte[] raw) throws Exception {
        if (raw.length < 5 || raw[0] != 0)
            throw new IllegalStateException("not in Confluent's wire format: " + HEX.formatHex(raw));
        int id = ByteBuffer.wrap(raw, 1, 4).getInt();
        Schema schema = writerSchema(id);
        GenericDatumReader<Object> reader = new GenericDatumReader<>(schema, schema, data);
        var decoder = DecoderFactory.get().binaryDecoder(raw, 5, raw.length - 5, null);
        Object value = reader.read(null, decoder);
        if (!decoder.isEnd()) throw new IllegalStateException("bytes left after the value of schema " + id);
        return value;
    }

    static void write(JsonGenerator out, Object value) throws Exception {
        if (value == null) {
            out.writeNull();
        } else if (value instanceof GenericRecord record) {
            out.writeStartObject();
            for (Schema.Field field : record.getSchema().getFields()) {
                out.writeFieldName(field.name());
                write(out, record.get(field.pos()));
            }
            out.writeEndObject();
        } else if (value instanceof Map<?, ?> map) {
            out.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                out.writeFieldName(e.getKey().toString());
                write(out, e.getValue());
            }
            out.writeEndObject();
        } else if (value instanceof List<?> list) {
            out.writeStartArray();
            for (Object item : list) write(out, item);
            out.writeEndArray();
        } else if (value instanceof ByteBuffer buffer) {
            byte[] bytes = new byte[buffer.remaining()];
            buffer.duplicate().get(bytes);
            tagged(out, "$bytes", HEX.formatHex(bytes));
        } else if (value instanceof GenericFixed fixed) {
            tagged(out, "$bytes", HEX.formatHex(fixed.bytes()));
        } else if (value instanceof BigDecimal decimal) {
            out.writeStartObject();
            out.writeFieldName("$decimal");
            out.writeStartArray();
            out.writeString(decimal.unscaledValue().toString());
            out.writeNumber(decimal.scale());
            out.writeEndArray();
            out.writeEndObject();
        } else if (value instanceof LocalDate date) {
            tagged(out, "$date", date.toEpochDay());
        } else if (value instanceof LocalTime time) {
            tagged(out, time.getNano() % 1000_000 == 0 ? "$time_ms" : "$time_us",
                   time.getNano() % 1000_000 == 0 ? time.toNanoOfDay() / 1000_000 : time.toNanoOfDay() / 1000);
        } else if (value instanceof Instant instant) {
            if (instant.getNano() % 1000_000 == 0) tagged(out, "$timestamp_ms", instant.toEpochMilli());
            else tagged(out, "$timestamp_us", ChronoUnit.MICROS.between(Instant.EPOCH, instant));
        } else if (value instanceof Float f) {
            writeDouble(out, f.doubleValue());
        } else if (value instanceof Double d) {
            writeDouble(out, d);
        } else if (value instanceof Integer i) {
            out.writeNumber(i);
        } else if (value instanceof Long l) {
            out.writeNumber(l);
        } else if (value instanceof Boolean b) {
            out.writeBoolean(b);
        } else if (value instanceof CharSequence || value instanceof GenericData.EnumSymbol) {
            out.writeString(value.toString());
        } else {
            throw new IllegalStateException("a value of " + value.getClass());
        }
    }

    static void writeDouble(JsonGenerator out, double d) throws Exception {
        if (Double.isFinite(d)) out.writeNumber(d);
        else tagged(out, "$double", Double.toString(d));
    }

    static void tagged(JsonGenerator out, String tag, Object value) throws Exception {
        out.writeStartObject();
        out.writeFieldName(tag);
        if (value instanceof Long l) out.writeNumber(l);
        else out.writeString(value.toString());
        out.writeEndObject();
    }

    static SSLContext tls(String caFile, String keystore, String password) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (var in = new FileInputStream(caFile)) {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trustManagers.init(trust);
        KeyManagerFactory keyManagers = null;
        if (keystore != null) {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            try (var in = new FileInputStream(keystore)) {
                keys.load(in, password.toCharArray());
            }
            keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, password.toCharArray());
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keyManagers == null ? null : keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
        return context;
    }

    public static void main(String[] args) throws Exception {
        HttpClient.Builder http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10));
        if (args.length >= 4) http.sslContext(tls(args[3], args.length >= 6 ? args[4] : null, args.length >= 6 ? args[5] : null));
        AvroJavaReader reader = new AvroJavaReader(args[0], http.build());
        JsonFactory json = new JsonFactory();
        List<String> lines = new ArrayList<>();
        for (String line : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
            if (line.isBlank()) continue;
            String[] parts = line.trim().split(" ");
            StringWriter text = new StringWriter();
            try (JsonGenerator out = json.createGenerator(text)) {
                out.writeStartObject();
                out.writeFieldName("key");
                write(out, parts[0].equals("-") ? null : reader.decode(HEX.parseHex(parts[0])));
                out.writeFieldName("value");
                write(out, parts[1].equals("-") ? null : reader.decode(HEX.parseHex(parts[1])));
                out.writeEndObject();
            }
            lines.add(text.toString());
        }
        Files.write(Path.of(args[2]), lines, StandardCharsets.UTF_8);
    }
}
