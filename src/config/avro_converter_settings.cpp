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

}  // namespace

void read_avro_converter_setting(const Entry& e, std::string_view setting, AvroConverterSettings& avro) {
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
        if (boolean_option(e))
            fail(e.location, e.key + ": true is not supported: the router writes each record with the schema it "
                                     "makes of it, registered or looked up (auto.register.schemas)");
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
                                 "auto.register.schemas, use.latest.version, key.subject.name.strategy, "
                                 "value.subject.name.strategy, connect.meta.data, enhanced.avro.schema.support, "
                                 "schema.registry.request.timeout.ms, schemas.cache.config)");
    }
}

void check_avro_converter(const AvroConverterSettings& avro, std::string_view side) {
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
