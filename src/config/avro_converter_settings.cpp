#include "outbox/config/avro_converter_settings.hpp"

namespace outbox::config {

bool is_converter_setting(std::string_view name, std::string_view& side, std::string_view& setting) {
    for (const std::string_view prefix : {"key.converter.", "value.converter."}) {
        if (!name.starts_with(prefix) || name == std::string(prefix) + "schemas.enable") continue;
        side = prefix.substr(0, prefix.size() - std::string_view(".converter.").size());
        setting = name.substr(prefix.size());
        return true;
    }
    return false;
}

namespace {

SubjectNameStrategy strategy(const Entry& e) {
    std::string word = option_word(e);
    if (const auto dot = word.rfind('.'); dot != std::string::npos) word = word.substr(dot + 1);
    if (word == "topicnamestrategy") return SubjectNameStrategy::topic;
    if (word == "recordnamestrategy") return SubjectNameStrategy::record;
    if (word == "topicrecordnamestrategy") return SubjectNameStrategy::topic_record;
    fail(e.location, e.key + ": expected io.confluent.kafka.serializers.subject.TopicNameStrategy, "
                             "RecordNameStrategy or TopicRecordNameStrategy, got " + quoted(text_of(e)));
}

// A Java keystore or truststore type the router can read: PEM files only.
void require_pem(const Entry& e) {
    if (option_word(e) != "pem")
        fail(e.location, e.key + ": only PEM is supported (a PEM file's path in the matching .location); convert a "
                                 "JKS or PKCS12 store with keytool and openssl");
}

// Apicurio's core API URL (.../apis/registry/v3, or v2, or the bare server) as the URL of the
// same server's Confluent-compatible API, which the router speaks: with Apicurio's default
// artifact group, a subject is the artifact of the same id and the API's ids are content ids,
// so the records carry the ids Apicurio's own serializer writes.
std::string confluent_compatible_url(const Entry& e, std::string url) {
    while (!url.empty() && url.back() == '/') url.pop_back();
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        fail(e.location, e.key + ": expected an http:// or https:// URL, got " + quoted(url));
    for (const std::string_view core : {"/apis/registry/v3", "/apis/registry/v2"})
        if (url.ends_with(core)) return url.substr(0, url.size() - core.size()) + "/apis/ccompat/v7";
    if (url.find('/', scheme + 3) == std::string::npos) return url + "/apis/ccompat/v7";
    fail(e.location, e.key + ": expected Apicurio Registry's core API URL (http://host:port/apis/registry/v3), got " +
                         quoted(url));
}

// The part of a Java class name after its last dot.
std::string simple_class_name(const Entry& e) {
    const std::string name = text_of(e);
    const auto dot = name.rfind('.');
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

[[noreturn]] void unsupported_apicurio(const Entry& e, const std::string& why) {
    fail(e.location, e.key + ": " + quoted(text_of(e)) + " is not supported: " + why);
}

// Apicurio's AvroConverter settings (SerdeConfig, SchemaResolverConfig): the ones that keep its
// default wire format, or name the registry, credentials and TLS.
void read_apicurio_setting(const Entry& e, std::string_view setting, AvroConverterSettings& avro) {
    if (setting == "apicurio.registry.url") {
        avro.registry_urls = {confluent_compatible_url(e, non_empty_text(e))};
    } else if (setting == "apicurio.registry.auto-register") {
        avro.apicurio_auto_register = boolean_option(e);
    } else if (setting == "apicurio.registry.auto-register.if-exists") {
        if (option_word(e) != "find_or_create_version")
            unsupported_apicurio(e, "only FIND_OR_CREATE_VERSION (the default): a schema already registered is used");
    } else if (setting == "apicurio.registry.find-latest") {
        avro.use_latest_version = boolean_option(e);
        avro.latest_compatibility_strict = false;  // Apicurio checks nothing before using the latest
    } else if (setting == "apicurio.registry.use-id") {
        if (option_word(e) != "contentid")
            unsupported_apicurio(e, "only contentId (the default): the router writes content ids");
    } else if (setting == "apicurio.registry.id-handler") {
        if (simple_class_name(e) != "Default4ByteIdHandler")
            unsupported_apicurio(e, "only io.apicurio.registry.serde.Default4ByteIdHandler (the default): the magic "
                                    "byte and a 4-byte id");
    } else if (setting == "apicurio.registry.headers.enabled") {
        if (boolean_option(e))
            unsupported_apicurio(e, "the router writes the schema's id in the record's bytes (the default, false), "
                                    "not in headers");
    } else if (setting == "apicurio.registry.artifact-resolver-strategy") {
        if (simple_class_name(e) != "TopicIdStrategy")
            unsupported_apicurio(e, "only io.apicurio.registry.serde.strategy.TopicIdStrategy (the default): the "
                                    "artifact <topic>-key or <topic>-value in the default group");
    } else if (setting == "apicurio.registry.avro.encoding") {
        if (option_word(e) != "binary") unsupported_apicurio(e, "only BINARY (the default)");
    } else if (setting == "apicurio.registry.auth.username") {
        avro.apicurio_username = non_empty_text(e);
    } else if (setting == "apicurio.registry.auth.password") {
        avro.apicurio_password = text_of(e);
    } else if (setting == "apicurio.registry.tls.truststore.location") {
        avro.ca_location = non_empty_text(e);
    } else if (setting == "apicurio.registry.tls.truststore.type") {
        require_pem(e);
    } else {
        fail(e.location, e.key + ": a setting of Apicurio's AvroConverter the router does not support (supported: "
                                 "apicurio.registry.url, auto-register, auto-register.if-exists, find-latest, use-id, "
                                 "id-handler, headers.enabled, artifact-resolver-strategy, avro.encoding, "
                                 "auth.username, auth.password, tls.truststore.location, tls.truststore.type; and "
                                 "connect.meta.data, enhanced.avro.schema.support, schemas.cache.config)");
    }
}

// Settings of Confluent's serializer and registry client, which Apicurio's converter does not read.
bool confluent_only(std::string_view setting) {
    return setting != "connect.meta.data" && setting != "enhanced.avro.schema.support" &&
           setting != "schemas.cache.config" && !setting.starts_with("apicurio.");
}

}  // namespace

void read_avro_converter_setting(const Entry& e, std::string_view setting, AvroConverterSettings& avro) {
    if (setting.starts_with("apicurio.")) {
        if (!avro.apicurio_setting) avro.apicurio_setting = std::make_pair(e.location, e.key);
        read_apicurio_setting(e, setting, avro);
        return;
    }
    if (confluent_only(setting) && !avro.confluent_setting) avro.confluent_setting = std::make_pair(e.location, e.key);
    if (setting == "schema.registry.url") {
        avro.registry_urls.clear();
        const std::string urls = list_text(e);
        for (const auto url : split_list(urls))
            if (!url.empty()) avro.registry_urls.emplace_back(url);
        if (avro.registry_urls.empty()) fail(e.location, e.key + ": must name at least one URL");
    } else if (setting == "basic.auth.credentials.source") {
        if (option_word(e) != "user_info")
            fail(e.location, e.key + ": only USER_INFO is supported (basic.auth.user.info); URL and SASL_INHERIT are not");
    } else if (setting == "basic.auth.user.info") {
        avro.user_info = text_of(e);
    } else if (setting == "bearer.auth.credentials.source") {
        if (option_word(e) != "static_token")
            fail(e.location, e.key + ": only STATIC_TOKEN is supported (bearer.auth.token)");
    } else if (setting == "bearer.auth.token") {
        avro.bearer_token = text_of(e);
    } else if (setting == "schema.registry.ssl.truststore.location") {
        avro.ca_location = non_empty_text(e);
    } else if (setting == "schema.registry.ssl.keystore.location") {
        avro.certificate_location = non_empty_text(e);
    } else if (setting == "schema.registry.ssl.key.password" || setting == "schema.registry.ssl.keystore.password") {
        avro.key_password = text_of(e);
    } else if (setting == "schema.registry.ssl.truststore.type" || setting == "schema.registry.ssl.keystore.type") {
        require_pem(e);
    } else if (setting == "auto.register.schemas") {
        avro.auto_register = boolean_option(e);
    } else if (setting == "use.latest.version") {
        avro.use_latest_version = boolean_option(e);
    } else if (setting == "latest.compatibility.strict") {
        avro.latest_compatibility_strict = boolean_option(e);
    } else if (setting == "key.subject.name.strategy" || setting == "value.subject.name.strategy") {
        avro.subject_strategy = strategy(e);
    } else if (setting == "connect.meta.data") {
        avro.connect_meta_data = boolean_option(e);
    } else if (setting == "enhanced.avro.schema.support") {
        avro.enhanced_schema_support = boolean_option(e);
    } else if (setting == "schema.registry.request.timeout.ms") {
        avro.request_timeout_ms = integer_at_least(e, 100);
    } else if (setting == "schemas.cache.config") {
        avro.cache_capacity = integer_at_least(e, 1);
    } else {
        fail(e.location, e.key + ": unknown AvroConverter setting (known: schema.registry.url, "
                                 "basic.auth.credentials.source, basic.auth.user.info, bearer.auth.credentials.source, "
                                 "bearer.auth.token, schema.registry.ssl.truststore.location, "
                                 "schema.registry.ssl.keystore.location, schema.registry.ssl.key.password, "
                                 "auto.register.schemas, use.latest.version, latest.compatibility.strict, "
                                 "key.subject.name.strategy, "
                                 "value.subject.name.strategy, connect.meta.data, enhanced.avro.schema.support, "
                                 "schema.registry.request.timeout.ms, schemas.cache.config)");
    }
}

void check_avro_converter(AvroConverterSettings& avro, std::string_view side) {
    if (const auto& foreign = avro.apicurio ? avro.confluent_setting : avro.apicurio_setting)
        fail(foreign->first, foreign->second + ": a setting of " + (avro.apicurio ? "Confluent's" : "Apicurio's") +
                                 " AvroConverter, but " + std::string(side) + ".converter names " +
                                 (avro.apicurio ? "Apicurio's" : "Confluent's"));
    if (avro.apicurio) {
        avro.auto_register = avro.apicurio_auto_register.value_or(false);
        if (!avro.apicurio_username.empty()) avro.user_info = avro.apicurio_username + ":" + avro.apicurio_password;
        if (avro.registry_urls.empty())
            fail(avro.location, std::string(side) + ".converter: Apicurio's AvroConverter needs " + std::string(side) +
                                    ".converter.apicurio.registry.url");
    }
    if (avro.registry_urls.empty())
        fail(avro.location, std::string(side) + ".converter: AvroConverter needs " + std::string(side) +
                                ".converter.schema.registry.url");
    if (!avro.user_info.empty() && !avro.bearer_token.empty())
        fail(avro.location, std::string(side) + ".converter: basic.auth.user.info and bearer.auth.token are both set; "
                                                "a registry takes one");
}

NameAdjustmentMode name_adjustment_mode(const Entry& e) {
    return enum_option<NameAdjustmentMode>(
        e, {{"none", NameAdjustmentMode::none}, {"avro", NameAdjustmentMode::avro},
            {"avro_unicode", NameAdjustmentMode::avro_unicode}});
}

}  // namespace outbox::config
