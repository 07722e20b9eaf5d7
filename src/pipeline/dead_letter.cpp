#include "outbox/pipeline/dead_letter.hpp"

namespace outbox::pipeline {

DeadLetter::DeadLetter(std::string topic, std::optional<std::string> key, std::optional<std::string> value,
                       HeaderList original_headers,
                       const std::string& original_topic, const std::string& stage, const std::string& cause,
                       const Origin& origin)
    : topic_(std::move(topic)), key_(std::move(key)), value_(std::move(value)), headers_(std::move(original_headers)),
      timestamp_ms_(origin.timestamp_ms) {
    headers_.emplace_back("__connect.errors.topic", original_topic);
    headers_.emplace_back("__connect.errors.stage", stage);
    headers_.emplace_back("__connect.errors.exception.message", cause);
    headers_.emplace_back("__outbox.errors.source", origin.source);
    headers_.emplace_back("__outbox.errors.commit.lsn", format_lsn(origin.commit_lsn));
    headers_.emplace_back("__outbox.errors.xid", std::to_string(origin.xid));
    index_headers();
}

DeadLetter::DeadLetter(std::string topic, std::optional<std::string> key, std::optional<std::string> value,
                       HeaderList headers, std::int64_t timestamp_ms)
    : topic_(std::move(topic)), key_(std::move(key)), value_(std::move(value)), headers_(std::move(headers)),
      timestamp_ms_(timestamp_ms) {
    index_headers();
}

void DeadLetter::drop_value(const std::string& reason) {
    if (!value_) return;
    headers_.emplace_back("__outbox.errors.value.dropped", reason);
    headers_.emplace_back("__outbox.errors.value.size", std::to_string(value_->size()));
    value_.reset();
    index_headers();
}

void DeadLetter::index_headers() {
    header_views_.clear();
    for (const auto& [name, value] : headers_)
        header_views_.push_back({name, value ? std::optional<std::string_view>(*value) : std::nullopt});
}

kafka::Record DeadLetter::record() const {
    kafka::Record record;
    record.topic = topic_;
    if (key_) record.key = *key_;
    if (value_) record.value = *value_;
    record.headers = header_views_;
    record.timestamp_ms = timestamp_ms_;
    return record;
}

}  // namespace outbox::pipeline
