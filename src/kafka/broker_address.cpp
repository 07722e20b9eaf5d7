#include "outbox/kafka/broker_address.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace outbox::kafka {

std::optional<BrokerAddress> parse_broker_address(std::string text) {
    if (const auto scheme = text.find("://"); scheme != std::string::npos) text.erase(0, scheme + 3);
    const auto colon = text.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) return std::nullopt;
    BrokerAddress result{text.substr(0, colon), text.substr(colon + 1)};
    if (result.host.size() >= 2 && result.host.front() == '[' && result.host.back() == ']')
        result.host = result.host.substr(1, result.host.size() - 2);
    return result;
}

std::vector<std::string> bootstrap_entries(const std::string& bootstrap_servers) {
    std::vector<std::string> entries;
    std::size_t start = 0;
    while (start <= bootstrap_servers.size()) {
        const auto end = std::min(bootstrap_servers.find(',', start), bootstrap_servers.size());
        std::string entry = bootstrap_servers.substr(start, end - start);
        start = end + 1;
        entry.erase(0, entry.find_first_not_of(" \t"));
        entry.erase(entry.find_last_not_of(" \t") + 1);
        if (!entry.empty()) entries.push_back(std::move(entry));
    }
    return entries;
}

std::string normalized_broker_address(std::string_view text) {
    if (const auto scheme = text.find("://"); scheme != std::string_view::npos) text.remove_prefix(scheme + 3);
    // librdkafka names a broker protocol://host:port/id; no host or port holds a '/'.
    text = text.substr(0, text.find('/'));
    auto address = parse_broker_address(std::string(text));
    if (!address || address->host.empty()) return {};
    std::string host = std::move(address->host);
    std::transform(host.begin(), host.end(), host.begin(), [](unsigned char c) { return std::tolower(c); });
    in6_addr v6{};
    if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
        char shortest[INET6_ADDRSTRLEN];
        if (inet_ntop(AF_INET6, &v6, shortest, sizeof shortest)) host = shortest;
        host = "[" + host + "]";
    }
    return host + ":" + address->port;
}

}  // namespace outbox::kafka
