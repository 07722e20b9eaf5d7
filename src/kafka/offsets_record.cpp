#include "outbox/kafka/offsets_record.hpp"

#include <nlohmann/json.hpp>

namespace outbox::kafka {

std::string SourceIdentity::key() const { return system_id + "/" + database + "/" + slot; }

std::string SourceIdentity::default_transactional_id() const {
    return "outbox-router-" + system_id + "-" + database + "-" + slot;
}

OffsetsRecord::OffsetsRecord(std::string topic, SourceIdentity source)
    : topic_(std::move(topic)), source_(std::move(source)), key_(source_.key()) {}

Record OffsetsRecord::record_for(Lsn end_lsn, std::int64_t timestamp_ms) {
    value_ = nlohmann::json{{"end_lsn", format_lsn(end_lsn)},
                            {"system_id", source_.system_id},
                            {"database", source_.database},
                            {"slot", source_.slot}}
                 .dump();
    Record record;
    record.topic = topic_;
    record.key = key_;
    record.value = value_;
    record.timestamp_ms = timestamp_ms;
    return record;
}

std::optional<Lsn> OffsetsRecord::position_of(std::string_view value) {
    const auto json = nlohmann::json::parse(value.begin(), value.end(), nullptr, false);
    if (!json.is_object() || !json.contains("end_lsn") || !json["end_lsn"].is_string()) return std::nullopt;
    return parse_lsn(json["end_lsn"].get<std::string>());
}

}  // namespace outbox::kafka
