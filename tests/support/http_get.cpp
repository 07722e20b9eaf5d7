#include "http_get.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sstream>

namespace outbox::test {

HttpReply http_request(std::uint16_t port, const std::string& method, const std::string& path) {
    HttpReply reply;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return reply;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    std::string response;
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
        const std::string request = method + " " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
        if (send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
            char buffer[8192];
            for (ssize_t n; (n = recv(fd, buffer, sizeof buffer, 0)) > 0;) response.append(buffer, static_cast<std::size_t>(n));
        }
    }
    close(fd);
    const auto end_of_headers = response.find("\r\n\r\n");
    const auto space = response.find(' ');
    if (end_of_headers == std::string::npos || space == std::string::npos || !response.starts_with("HTTP/")) return reply;
    reply.status = std::stoi(response.substr(space + 1, 3));
    reply.headers = response.substr(0, end_of_headers);
    reply.body = response.substr(end_of_headers + 4);
    return reply;
}

std::optional<double> sample_value(const std::string& exposition, const std::string& series) {
    std::istringstream lines(exposition);
    for (std::string line; std::getline(lines, line);) {
        if (line.size() > series.size() && line.starts_with(series) && line[series.size()] == ' ')
            return std::stod(line.substr(series.size() + 1));
    }
    return std::nullopt;
}

}  // namespace outbox::test
