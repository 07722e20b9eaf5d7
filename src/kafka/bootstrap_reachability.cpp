#include "outbox/kafka/bootstrap_reachability.hpp"

#include "outbox/kafka/tcp_connect.hpp"

namespace outbox::kafka {

std::string unreachable_bootstrap_brokers(const std::string& bootstrap_servers, std::chrono::milliseconds budget_each) {
    std::string causes;
    for (const auto& entry : bootstrap_entries(bootstrap_servers)) {
        const auto address = parse_broker_address(entry);
        std::string cause;
        if (!address) {
            cause = "not host:port";
        } else {
            const auto connection = connect_tcp(*address, std::chrono::steady_clock::now() + budget_each);
            if (connection.outcome == ConnectOutcome::connected) return {};
            cause = describe(connection.outcome, connection.error);
        }
        causes += (causes.empty() ? "" : "; ") + entry + ": " + cause;
    }
    if (causes.empty()) return {};
    return "no bootstrap broker accepts connections: " + causes;
}

}  // namespace outbox::kafka
