#include "outbox/migration/config_import.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>

#include "outbox/config/conninfo.hpp"
#include "outbox/migration/producer_properties.hpp"
#include "outbox/util/errors.hpp"

namespace outbox::migration {
namespace {

using Entries = std::vector<std::pair<std::string, std::string>>;

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

bool is_apicurio_converter(const std::string& name) { return name == "io.apicurio.registry.utils.converter.AvroConverter"; }

bool is_avro_converter(const std::string& name) {
    return name == "io.confluent.connect.avro.AvroConverter" || is_apicurio_converter(name);
}

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> items;
    std::size_t start = 0;
    for (;;) {
        const auto comma = text.find(',', start);
        const std::string item = trim(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (!item.empty()) items.push_back(item);
        if (comma == std::string::npos) return items;
        start = comma + 1;
    }
}

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    return text;
}


// A value as a YAML scalar: plain when that cannot be misread, else a double-quoted string
// (JSON's escaping is YAML's).
std::string yaml_scalar(const std::string& value) {
    // A scan rather than std::regex, which recurses once per character: a long value (an inlined
    // certificate bundle) would exhaust the stack.
    const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    const bool plain = !value.empty() && word(value[0]) &&
                       std::all_of(value.begin(), value.end(), [&](char c) { return word(c) || c == '.' || c == '-'; });
    return plain ? value : nlohmann::json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A conninfo value; a reference to the environment or a file is always quoted, so that a path
// with blanks stays one value (the router expands it inside the value: config/conninfo.hpp).
std::string conninfo_value(const std::string& value) {
    const bool reference = value.find("${env:") != std::string::npos || value.find("${file:") != std::string::npos;
    return reference ? config::quoted_conninfo_value(value) : config::conninfo_value(value);
}

const std::set<std::string>& router_outbox_options() {
    static const std::set<std::string> options = {
        "route.by.field", "route.topic.regex", "route.topic.replacement", "route.tombstone.on.empty.payload",
        "table.field.event.id", "table.field.event.key", "table.field.event.payload", "table.field.event.timestamp",
        "table.fields.additional.placement", "table.field.additional.missing",
        "table.fields.additional.error.on.missing", "table.expand.json.payload",
        "table.json.payload.null.behavior", "table.json.payload.empty.array.behavior", "table.op.invalid.behavior",
        "tracing.span.context.field", "tracing.with.context.field.only",
        "table.field.event.schema.version"};
    return options;
}

class Importer {
public:
    explicit Importer(const ConnectorSettings& settings) : settings_(settings) {
        for (const auto& s : settings.connector) {
            if (!latest_.count(s.key)) order_.push_back(s.key);
            latest_[s.key] = &s;
        }
    }

    ImportedConfig run(const std::string& source_description) {
        check_connector_class();
        import_transforms();
        import_record_format();
        for (const auto& key : order_)
            if (!handled_.count(key)) import_connector_key(*latest_.at(key));
        if (conninfo_.empty())
            not_imported_.push_back({"(not given)", "database.hostname", "",
                                     "no database.* settings: write postgres.conninfo (a libpq connection string)"});
        import_producer();
        return {emit(source_description), not_imported_};
    }

private:
    const Setting* get(const std::string& key) const {
        const auto found = latest_.find(key);
        return found == latest_.end() ? nullptr : found->second;
    }
    std::string value_of(const std::string& key, const std::string& fallback = "") const {
        const Setting* s = get(key);
        return s ? s->value : fallback;
    }
    void skip(const Setting& s, const std::string& reason) {
        handled_.insert(s.key);
        not_imported_.push_back({s.origin, s.key, masked_value(s.key, s.value), reason});
    }
    void take(const Setting& s) { handled_.insert(s.key); }

    // ${env:NAME} and FileConfigProvider's ${file:PATH:KEY} stay (the router reads both at load,
    // so no secret lands in the YAML); Debezium Server's ${NAME} and ${NAME:default} are environment
    // references too; another config provider (${vault:...}) has no equivalent.
    std::optional<std::string> referenced(const Setting& s) {
        static const std::regex server_reference("\\$\\{([A-Za-z_][A-Za-z0-9_.]*)(:[^}]*)?\\}");
        static const std::regex provider_reference("\\$\\{(?!env:|file:)[A-Za-z]+:[^}]*\\}");
        // MicroProfile Config (Debezium Server) has no providers: ${NAME:default} is a default.
        if (settings_.format == ConnectorSettings::Format::debezium_server)
            return std::regex_replace(s.value, server_reference, "$${env:$1}");
        if (std::regex_search(s.value, provider_reference)) return std::nullopt;
        return s.value;
    }

    void check_connector_class() {
        const Setting& s = *get("connector.class");
        if (s.value.find("PostgresConnector") == std::string::npos)
            throw ConfigError(s.origin + ": connector.class is " + s.value +
                              "; outbox-router reads PostgreSQL only (io.debezium.connector.postgresql.PostgresConnector)");
        take(s);
    }

    // One of AvroConverter's settings the router reads (docs/configuration.md, "Avro and a schema
    // registry"), Confluent's or Apicurio's, under the same key; a literal credential is not
    // copied into the YAML. Apicurio's settings are copied whatever their values: the router
    // refuses, when it loads the file, a value that changes the wire format it writes.
    void import_avro_setting(const Setting& s, const std::string& setting, bool apicurio) {
        static const std::set<std::string> confluent = {
            "schema.registry.url", "basic.auth.credentials.source", "basic.auth.user.info",
            "bearer.auth.credentials.source", "bearer.auth.token", "schema.registry.ssl.truststore.location",
            "schema.registry.ssl.truststore.type", "schema.registry.ssl.keystore.location",
            "schema.registry.ssl.keystore.type", "schema.registry.ssl.key.password", "auto.register.schemas",
            "use.latest.version", "latest.compatibility.strict", "key.subject.name.strategy",
            "value.subject.name.strategy", "connect.meta.data", "enhanced.avro.schema.support", "schemas.cache.config"};
        static const std::set<std::string> apicurio_settings = {
            "apicurio.registry.url", "apicurio.registry.auto-register", "apicurio.registry.auto-register.if-exists",
            "apicurio.registry.find-latest", "apicurio.registry.use-id", "apicurio.registry.id-handler",
            "apicurio.registry.headers.enabled", "apicurio.registry.artifact-resolver-strategy",
            "apicurio.registry.avro.encoding", "apicurio.registry.auth.username", "apicurio.registry.auth.password",
            "apicurio.registry.tls.truststore.location", "apicurio.registry.tls.truststore.type", "connect.meta.data",
            "enhanced.avro.schema.support", "schemas.cache.config"};
        if (!(apicurio ? apicurio_settings : confluent).count(setting)) {
            if (apicurio && starts_with(setting, "apicurio."))
                return skip(s, "a setting of Apicurio's AvroConverter the router does not support; it writes "
                               "Apicurio's default wire format (docs/configuration.md, \"Avro and a schema registry\")");
            return skip(s, "an AvroConverter setting the router has no use for");
        }
        const auto resolved = referenced(s);
        if (!resolved) return skip(s, "a Kafka Connect config provider other than FileConfigProvider; write ${env:NAME}");
        // A secret by its key (user info, a token, a password) or by its value (a URL with user:password@).
        const bool names_a_source = setting.ends_with("credentials.source");
        if (!names_a_source && masked_value(s.key, *resolved) != *resolved && resolved->find("${") == std::string::npos)
            return skip(s, "a credential written in the file: put it in the environment and write ${env:NAME} (or "
                           "${file:PATH:KEY}), so that it is in no YAML");
        top_.emplace_back(s.key, *resolved);
        take(s);
    }

    void import_transforms();
    void import_record_format();
    bool import_converter(const std::string& which, const Setting& converter, const Setting* schemas);
    void import_cloud_events(const Setting& converter);
    void import_converters(const std::string& which);
    void import_server_format(const std::string& which);
    void import_event_router(const std::string& name, std::vector<const Setting*> options);
    void import_connector_key(const Setting& s);
    void import_tables(const Setting& s);
    void import_producer();
    std::string emit(const std::string& source_description) const;

    const ConnectorSettings& settings_;
    std::map<std::string, const Setting*> latest_;
    std::vector<std::string> order_;
    std::set<std::string> handled_;
    std::vector<NotImported> not_imported_;

    std::vector<std::pair<std::string, std::string>> conninfo_;
    Entries postgres_, outbox_, kafka_, top_;
    std::vector<std::pair<std::string, Entries>> overrides_;
    std::optional<std::string> message_key_columns_;  // a connector key the outbox section carries
    bool outbox_taken_ = false;
};

void Importer::import_transforms() {
    const Setting* list = get("transforms");
    if (!list) return;
    take(*list);
    for (const auto& name : split_commas(list->value)) {
        const std::string prefix = "transforms." + name + ".";
        std::vector<const Setting*> own;
        for (const auto& key : order_)
            if (starts_with(key, prefix)) own.push_back(get(key));
        const std::string type = value_of(prefix + "type");
        if (type == "io.debezium.transforms.outbox.EventRouter") {
            import_event_router(name, own);
        } else {
            for (const Setting* s : own)
                skip(*s, "transform \"" + name + "\" (" + (type.empty() ? "no type" : type) +
                             ") has no equivalent: the router applies only the Outbox EventRouter");
        }
    }
    if (const Setting* list = get("predicates")) take(*list);
    for (const auto& key : order_)
        if (starts_with(key, "predicates.") && !handled_.count(key))
            skip(*get(key), "predicate not used by an imported EventRouter");
}

// An EventRouter's options go to outbox:, or to outbox.table.overrides when its predicate is a
// TopicNameMatches that names one table's change topic (<topic.prefix>.<schema>.<table>).
void Importer::import_event_router(const std::string& name, std::vector<const Setting*> options) {
    const std::string prefix = "transforms." + name + ".";
    // Connect applies transforms in order: after an EventRouter for every table, a record is
    // already routed (no change event), and a later EventRouter passes it through.
    if (outbox_taken_) {
        for (const Setting* s : options)
            skip(*s, "EventRouter \"" + name + "\" comes after one that applies to every table, which routes each "
                     "record first: Connect hands it routed records, which it passes through");
        return;
    }
    std::optional<std::string> table;
    const std::string predicate = value_of(prefix + "predicate");
    if (!predicate.empty()) {
        const std::string pattern = value_of("predicates." + predicate + ".pattern");
        const std::string type = value_of("predicates." + predicate + ".type");
        std::string unescaped = std::regex_replace(pattern, std::regex("\\\\\\."), ".");
        const std::string topic_prefix = value_of("topic.prefix", value_of("database.server.name")) + ".";
        const bool negated = lower(value_of(prefix + "negate", "false")) == "true";
        if (type == "org.apache.kafka.connect.transforms.predicates.TopicNameMatches" && !negated &&
            starts_with(unescaped, topic_prefix) &&
            unescaped.find_first_of("[](){}*+?|^$\\") == std::string::npos) {
            table = unescaped.substr(topic_prefix.size());
            for (const auto& key : {"predicates." + predicate + ".type", "predicates." + predicate + ".pattern"})
                if (const Setting* s = get(key)) take(*s);
        } else {
            for (const Setting* s : options)
                skip(*s, "EventRouter \"" + name + "\" applies where predicate \"" + predicate +
                             "\" holds, which names no single table's topic; give its options under "
                             "outbox.table.overrides by hand");
            return;
        }
    }
    Entries entries;
    for (const Setting* s : options) {
        const std::string option = s->key.substr(prefix.size());
        if (option == "type" || option == "predicate" || option == "negate") {
            take(*s);
        } else if (router_outbox_options().count(option)) {
            entries.emplace_back(option, s->value);
            take(*s);
        } else if (option == "debezium.op.invalid.behavior" || option == "debezium.expand.json.payload") {
            // Removed in Debezium 2.0 and not read since: Debezium applies the current option's default.
            const std::string current = option == "debezium.op.invalid.behavior" ? "table.op.invalid.behavior"
                                                                                  : "table.expand.json.payload";
            skip(*s, "Debezium's name before 2.0, which Debezium 2.0 and later ignore, applying " + current + "'s default (" +
                         (option == "debezium.op.invalid.behavior" ? "warn" : "false") + "), as the router does; set outbox." +
                         current + " if you meant it");
        } else if (option == "table.field.event.type" || option == "tracing.operation.name") {
            skip(*s, "acts only through Kafka Connect schemas or OpenTelemetry spans, which the router does not make");
        } else {
            skip(*s, "not an EventRouter option the router knows");
        }
    }
    if (table) {
        overrides_.emplace_back(*table, entries);
    } else {
        outbox_ = entries;
        outbox_taken_ = true;
    }
}

// A converter class (and its schemas.enable) to the router's same keys, when the router writes
// that converter's bytes. Returns whether it does.
bool Importer::import_converter(const std::string& which, const Setting& converter, const Setting* schemas) {
    const std::string& name = converter.value;
    if (name == "org.apache.kafka.connect.storage.StringConverter" ||
        (which == "header.converter" && name == "org.apache.kafka.connect.storage.SimpleHeaderConverter")) {
        // A value converter set explicitly: structures as Connect's Struct text, the connector's bytes.
        if (which == "value.converter") top_.emplace_back(which, name);
        take(converter);
        return true;
    }
    if (name == "org.apache.kafka.connect.json.JsonConverter") {
        top_.emplace_back(which, name);
        // JsonConverter's own default is schemas on.
        top_.emplace_back(which + ".schemas.enable", schemas && lower(schemas->value) == "false" ? "false" : "true");
        take(converter);
        if (schemas) take(*schemas);
        return true;
    }
    if (which != "header.converter" &&
        (name == "io.confluent.connect.avro.AvroConverter" || name == "io.apicurio.registry.utils.converter.AvroConverter")) {
        top_.emplace_back(which, name);
        take(converter);
        return true;
    }
    if (which != "header.converter" && (name == "org.apache.kafka.connect.converters.ByteArrayConverter" ||
                                        name == "io.debezium.converters.BinaryDataConverter")) {
        top_.emplace_back(which, name);
        take(converter);
        return true;
    }
    return false;
}

// The connector's CloudEventsConverter and its settings under the router's same keys. Debezium's
// defaults are written out where the connector leaves them, so that the router names any it
// cannot write when it loads the file.
void Importer::import_cloud_events(const Setting& converter) {
    top_.emplace_back("value.converter", converter.value);
    take(converter);
    // The events' source is /debezium/postgresql/<topic.prefix>.
    if (const Setting* prefix = get("topic.prefix") ? get("topic.prefix") : get("database.server.name")) {
        top_.emplace_back("topic.prefix", prefix->value);
        take(*prefix);
    }
    const std::pair<const char*, const char*> settings[] = {
        {"serializer.type", nullptr},
        {"data.serializer.type", nullptr},
        {"metadata.source", "value,id:generate,type:generate,traceparent:header,dataSchemaName:generate"},
        {"extension.attributes.enable", "true"},
        {"opentelemetry.tracing.attributes.enable", nullptr},
        {"schema.name.adjustment.mode", nullptr},
        {"schema.cloudevents.name", nullptr},
        {"schema.data.name.source.header.enable", nullptr},
        {"json.schemas.enable", "true"},
    };
    for (const auto& [key, debezium_default] : settings) {
        const std::string name = std::string("value.converter.") + key;
        if (const Setting* s = get(name)) {
            top_.emplace_back(name, s->value);
            take(*s);
        } else if (debezium_default) {
            top_.emplace_back(name, debezium_default);
        }
    }
}

// Kafka Connect's rule (Worker, Plugins.newConverter): a connector that names a converter class
// gets it configured from the connector's own `<which>.*` settings only, JsonConverter's defaults
// filling the rest; a connector that names none gets the worker's converter, configured from the
// worker's settings, and its own `<which>.*` settings are ignored.
void Importer::import_converters(const std::string& which) {
    const std::string prefix = which + ".";
    const auto worker_setting = [&](const std::string& key) -> const Setting* {
        const auto& all = settings_.worker_converters;
        const auto found = std::find_if(all.rbegin(), all.rend(), [&](const Setting& s) { return s.key == key; });
        return found == all.rend() ? nullptr : &*found;
    };
    const auto list_worker = [&](const std::string& reason, const Setting* except) {
        for (const auto& s : settings_.worker_converters)
            if ((s.key == which || starts_with(s.key, prefix)) && &s != except && worker_setting(s.key) == &s)
                not_imported_.push_back({s.origin, s.key, masked_value(s.key, s.value), reason});
    };
    if (const Setting* own = get(which)) {
        list_worker("the connector names its own " + which + ", which Kafka Connect configures from the connector's "
                    "settings only", nullptr);
        if (which == "value.converter" && own->value == "io.debezium.converters.CloudEventsConverter")
            return import_cloud_events(*own);
        if (!import_converter(which, *own, get(prefix + "schemas.enable")))
            skip(*own, "the router writes the bytes of StringConverter, JsonConverter, ByteArrayConverter, "
                       "BinaryDataConverter and Confluent's or Apicurio's AvroConverter, with SimpleHeaderConverter's or "
                       "JsonConverter's headers (docs/configuration.md, \"Debezium's bytes\")");
        else if (is_avro_converter(own->value))
            for (const auto& key : order_)
                if (starts_with(key, prefix))
                    import_avro_setting(*get(key), key.substr(prefix.size()), is_apicurio_converter(own->value));
        return;
    }
    for (const auto& key : order_)
        if (starts_with(key, prefix) && !handled_.count(key))
            skip(*get(key), "Kafka Connect ignores a connector's " + prefix + "* settings unless the connector names the " +
                                which + " class itself: the worker's converter applies, with the worker's settings");
    const Setting* worker = worker_setting(which);
    if (!worker) return;
    const Setting* schemas = worker_setting(prefix + "schemas.enable");
    if (!import_converter(which, *worker, schemas)) {
        list_worker("the router writes the bytes of StringConverter, JsonConverter, ByteArrayConverter and "
                    "BinaryDataConverter, with SimpleHeaderConverter's or JsonConverter's headers "
                    "(docs/configuration.md, \"Debezium's bytes\")",
                    nullptr);
        return;
    }
    const bool json = worker->value == "org.apache.kafka.connect.json.JsonConverter";
    const bool avro = is_avro_converter(worker->value);
    for (const auto& s : settings_.worker_converters)
        if (avro && starts_with(s.key, prefix) && worker_setting(s.key) == &s)
            import_avro_setting(s, s.key.substr(prefix.size()), is_apicurio_converter(worker->value));
    for (const auto& s : settings_.worker_converters)
        if (starts_with(s.key, prefix) && !(json && &s == schemas) && !(avro && handled_.count(s.key)) &&
            worker_setting(s.key) == &s)
            not_imported_.push_back({s.origin, s.key, masked_value(s.key, s.value),
                                     "a setting of the worker's " + which + " the router has no use for"});
}

// Debezium Server's debezium.format.<key|value|header>: json without schemas is JsonConverter
// without schemas (the format's schemas.enable, or the one for all three).
void Importer::import_server_format(const std::string& which) {
    const Setting* format = get("debezium.format." + which);
    if (!format || lower(format->value) != "json") return;
    const Setting* schemas = get("debezium.format." + which + ".schemas.enable");
    if (!schemas) schemas = get("debezium.format.schemas.enable");
    top_.emplace_back(which + ".converter", "org.apache.kafka.connect.json.JsonConverter");
    top_.emplace_back(which + ".converter.schemas.enable", schemas && lower(schemas->value) == "false" ? "false" : "true");
    take(*format);
    if (schemas) take(*schemas);
}

// Converters, and Debezium's context headers: on unless extended.headers.enabled is false, and
// then named after topic.prefix.
void Importer::import_record_format() {
    for (const char* which : {"key.converter", "value.converter", "header.converter"}) import_converters(which);
    for (const char* which : {"key", "value", "header"}) import_server_format(which);
    const Setting* extended = get("extended.headers.enabled");
    if (extended) take(*extended);
    if (extended && lower(extended->value) == "false") return;
    const Setting* prefix = get("topic.prefix") ? get("topic.prefix") : get("database.server.name");
    if (!prefix) {
        not_imported_.push_back({"(Debezium's default)", "extended.headers.enabled", "true",
                                 "Debezium's context headers are named after topic.prefix, which is not given"});
        return;
    }
    top_.emplace_back("extended.headers.enabled", "true");
    if (!handled_.count(prefix->key)) top_.emplace_back("topic.prefix", prefix->value);  // unless CloudEvents took it
    take(*prefix);
}

void Importer::import_tables(const Setting& s) {
    std::string tables;
    for (const auto& item : split_commas(s.value)) {
        const std::string name = std::regex_replace(item, std::regex("\\\\\\."), ".");
        if (name.find_first_of("[](){}*+?|^$\\") != std::string::npos) {
            skip(s, "a regular expression; the router takes exact schema.table names: list the outbox tables");
            return;
        }
        tables += (tables.empty() ? "" : ", ") + name;
    }
    postgres_.emplace_back("table.include.list", tables);
    take(s);
}

// The column modes the router writes as Debezium does, and their values.
const std::vector<std::string>* column_mode_values(const std::string& key) {
    static const std::vector<std::string> time = {"adaptive", "adaptive_time_microseconds", "connect", "isostring"};
    static const std::vector<std::string> decimal = {"precise", "double", "string"};
    static const std::vector<std::string> binary = {"bytes", "base64", "base64-url-safe", "hex"};
    static const std::vector<std::string> interval = {"numeric", "string"};
    static const std::vector<std::string> hstore = {"json", "map"};
    if (key == "time.precision.mode") return &time;
    if (key == "interval.handling.mode") return &interval;
    if (key == "hstore.handling.mode") return &hstore;
    if (key == "decimal.handling.mode") return &decimal;
    if (key == "binary.handling.mode") return &binary;
    return nullptr;
}

std::string join_list(const std::vector<std::string>& items) {
    std::string text;
    for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
    return text;
}

void Importer::import_connector_key(const Setting& s) {
    static const std::map<std::string, std::string> conninfo_keys = {
        {"database.hostname", "host"},       {"database.port", "port"},         {"database.user", "user"},
        {"database.password", "password"},   {"database.dbname", "dbname"},     {"database.sslmode", "sslmode"},
        {"database.sslrootcert", "sslrootcert"}, {"database.sslcert", "sslcert"}, {"database.sslkey", "sslkey"},
        {"database.sslpassword", "sslpassword"}};
    static const std::set<std::string> postgres_keys = {"slot.name", "slot.failover", "publication.name", "status.update.interval.ms",
                                                        "heartbeat.action.query", "publish.via.partition.root"};
    const std::string& key = s.key;
    const std::string value = lower(s.value);
    if (const auto found = conninfo_keys.find(key); found != conninfo_keys.end()) {
        const auto resolved = referenced(s);
        if (!resolved)
            return skip(s, "a Kafka Connect config provider other than FileConfigProvider; write ${env:NAME} (or "
                           "leave the password out: libpq reads PGPASSWORD and ~/.pgpass)");
        conninfo_.emplace_back(found->second, *resolved);
        return take(s);
    }
    if (postgres_keys.count(key)) {
        postgres_.emplace_back(key, s.value);
        return take(s);
    }
    if (key == "heartbeat.interval.ms") {
        if (get("heartbeat.action.query")) {
            postgres_.emplace_back(key, s.value);
            return take(s);
        }
        return skip(s, "Debezium's heartbeat records; the router confirms an idle slot's position without them "
                       "(postgres.heartbeat.interval.ms runs a statement, for servers whose other databases write)");
    }
    if (key == "table.include.list" || key == "table.whitelist") return import_tables(s);
    if (key == "publication.autocreate.mode") {
        if (value == "filtered" || value == "disabled") {
            postgres_.emplace_back(key, value);
            return take(s);
        }
        return skip(s, "the router creates a publication for its tables (filtered) or uses an existing one (disabled)");
    }
    if (key == "name" || key == "tasks.max" || key == "tombstones.on.delete" ||
        (key == "plugin.name" && value == "pgoutput") ||
        (key == "snapshot.mode" && (value == "no_data" || value == "never")) ||
        (key == "transaction.boundary" && value == "poll"))
        return take(s);  // the router's behaviour already
    if (key == "errors.tolerance" || key == "errors.deadletterqueue.topic.name") {
        top_.emplace_back(key, s.value);
        return take(s);
    }
    if ((key == "exactly.once.support" && value == "required") ||
        (key == "exactly.once.source.support" && value == "enabled")) {
        if (std::none_of(top_.begin(), top_.end(), [](const auto& e) { return e.first == "delivery.guarantee"; }))
            top_.emplace_back("delivery.guarantee", "exactly-once");
        return take(s);
    }
    if (key == "max.queue.size") {
        top_.emplace_back("max.inflight.messages", s.value);
        return take(s);
    }
    if (key == "max.queue.size.in.bytes" && s.value != "0") {
        top_.emplace_back("max.inflight.bytes", s.value);
        return take(s);
    }
    if (starts_with(key, "key.converter") || starts_with(key, "value.converter") ||
        starts_with(key, "header.converter") || starts_with(key, "debezium.format."))
        return skip(s, "the router writes the bytes of StringConverter, JsonConverter without schemas and "
                       "ByteArrayConverter, with SimpleHeaderConverter's headers (docs/configuration.md, "
                       "\"Debezium's bytes\")");
    if (key == "topic.prefix" || key == "database.server.name")
        return skip(s, "names Debezium's own topics (change events, heartbeats, messages); the EventRouter's topics "
                       "do not use it and the router writes no others");
    if (key == "plugin.name") return skip(s, "the router decodes pgoutput only");
    if (key == "snapshot.mode")
        return skip(s, "the router does not snapshot: it publishes the outbox rows committed from the slot's position on");
    if (key == "message.prefix.include.list" || key == "message.prefix.exclude.list")
        return skip(s, "Debezium writes these messages unrouted; the router routes the prefixes in "
                       "outbox.message.prefix.include.list as outbox events (docs/configuration.md)");
    if (const auto* supported = column_mode_values(key)) {
        if (std::find(supported->begin(), supported->end(), s.value) != supported->end()) {
            top_.emplace_back(key, s.value);
            return take(s);
        }
        return skip(s, "the router writes this column mode's values as Debezium's default does not: only " +
                           join_list(*supported) + " (docs/configuration.md, \"Column values\")");
    }
    if (key == "message.key.columns") {
        message_key_columns_ = s.value;
        return take(s);
    }
    if (key == "unavailable.value.placeholder" || key == "money.fraction.digits") {
        top_.emplace_back(key, s.value);
        return take(s);
    }
    if (key == "event.converting.failure.handling.mode") {
        // warn (the default) and skip make a value Debezium's converter fails on null, as the router does.
        if (s.value == "warn" || s.value == "skip") return take(s);
        return skip(s, "the router writes a value Debezium's converter fails on (an ltree[] or enum array holding a NULL, "
                       "an unchanged out-of-line array) as null, as warn and skip do; it never stops on one "
                       "(docs/configuration.md, \"Column values\")");
    }
    if (key == "schema.include.list" || key == "schema.whitelist")
        return skip(s, "the router takes exact tables: postgres.table.include.list");
    if (starts_with(key, "topic.creation.")) {
        top_.emplace_back(key, s.value);
        return take(s);
    }
    if (key == "max.batch.size" || key == "poll.interval.ms")
        return skip(s, "sizes Debezium's internal queue polling; the router hands each event over as it decodes it");
    if (starts_with(key, "offset.") || starts_with(key, "schema.history."))
        return skip(s, "the router keeps its position in the replication slot (and, exactly-once, in offsets.topic)");
    skip(s, "no equivalent in outbox-router");
}

// Kafka producer properties to librdkafka's (migration/producer_properties), then the keys that
// configure only the host, listed.
void Importer::import_producer() {
    auto mapped = map_producer_properties(settings_.producer, [this](const Setting& s) { return referenced(s); });
    kafka_ = std::move(mapped.kafka);
    not_imported_.insert(not_imported_.end(), mapped.not_imported.begin(), mapped.not_imported.end());
    if (std::none_of(kafka_.begin(), kafka_.end(), [](const auto& e) { return e.first == "bootstrap.servers"; })) {
        kafka_.insert(kafka_.begin(), {"bootstrap.servers", "${env:KAFKA_BOOTSTRAP_SERVERS}"});
        not_imported_.push_back({"(not given)", "bootstrap.servers", "",
                                 "Kafka Connect's worker holds it: pass the worker's properties as a second file, "
                                 "or set KAFKA_BOOTSTRAP_SERVERS"});
    }
    for (const auto& s : settings_.host)
        not_imported_.push_back({s.origin, s.key, masked_value(s.key, s.value),
                                 "configures Kafka Connect's worker or Debezium Server itself"});
}

std::string Importer::emit(const std::string& source_description) const {
    std::string yaml = "# outbox-router configuration imported from " + source_description +
                       "\n# Check it before use: outbox-router --config FILE --check\n";
    const auto section = [&](const std::string& name, const Entries& entries, const std::string& extra = "") {
        if (entries.empty() && extra.empty()) return;
        yaml += name + ":\n";
        for (const auto& [key, value] : entries) yaml += "  " + key + ": " + yaml_scalar(value) + "\n";
        yaml += extra;
    };
    std::string conninfo;
    for (const auto& [key, value] : conninfo_) conninfo += (conninfo.empty() ? "" : " ") + key + "=" + conninfo_value(value);
    Entries postgres = postgres_;
    if (!conninfo.empty()) postgres.insert(postgres.begin(), {"conninfo", conninfo});
    section("postgres", postgres);
    // A table an EventRouter with a predicate routes is routed by that one alone (a later
    // EventRouter passes the routed record through), so the shared block, which overrides
    // inherit, must not carry the EventRouter for every table: that one becomes an override of
    // each other listed table.
    auto table_overrides = overrides_;
    Entries outbox = outbox_;
    if (!overrides_.empty() && !outbox_.empty()) {
        for (const auto& [key, value] : postgres_) {
            if (key != "table.include.list") continue;
            for (const auto& table : split_commas(value)) {
                const bool own = std::any_of(overrides_.begin(), overrides_.end(),
                                             [&](const auto& o) { return o.first == table; });
                if (!own) table_overrides.emplace_back(table, outbox_);
            }
            outbox.clear();
        }
    }
    std::string overrides;
    if (!table_overrides.empty()) {
        overrides = "  table.overrides:\n";
        for (const auto& [table, entries] : table_overrides) {
            overrides += "    " + yaml_scalar(table) + ":\n";
            for (const auto& [key, value] : entries) overrides += "      " + key + ": " + yaml_scalar(value) + "\n";
        }
    }
    if (message_key_columns_) outbox.emplace_back("message.key.columns", *message_key_columns_);
    section("outbox", outbox, overrides);
    section("kafka", kafka_);
    for (const auto& [key, value] : top_) yaml += key + ": " + yaml_scalar(value) + "\n";
    if (!not_imported_.empty()) {
        yaml += "# Not imported:\n";
        for (const auto& n : not_imported_) {
            std::string line = "#   " + n.origin + ": " + n.key + (n.value.empty() ? "" : " = " + n.value) + ": " + n.reason;
            std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
            yaml += line + "\n";
        }
    }
    return yaml;
}

}  // namespace

ImportedConfig import_debezium(const ConnectorSettings& settings, const std::string& source_description) {
    return Importer(settings).run(source_description);
}

}  // namespace outbox::migration
