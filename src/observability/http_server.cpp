#include "outbox/observability/http_server.hpp"

#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>

#include "outbox/util/errors.hpp"
#include "outbox/util/log.hpp"

namespace outbox::observability {
namespace {

// Scrapers and probes are few; these bound what a misbehaving client can hold.
constexpr unsigned kConnectionLimit = 16;
constexpr unsigned kConnectionTimeoutSeconds = 10;

struct AddrinfoDeleter {
    void operator()(addrinfo* info) const { freeaddrinfo(info); }
};

struct ResponseDeleter {
    void operator()(MHD_Response* response) const { MHD_destroy_response(response); }
};

void log_from_microhttpd(void*, const char* format, va_list arguments) {
    char message[512];
    std::vsnprintf(message, sizeof message, format, arguments);
    std::string text = message;
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    log::warn("metrics http: " + text);
}

sockaddr_storage resolve(const std::string& host, std::uint16_t port) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* raw = nullptr;
    const std::string service = std::to_string(port);
    if (const int error = getaddrinfo(host.c_str(), service.c_str(), &hints, &raw); error != 0)
        throw DefiniteError("metrics.listen: cannot resolve \"" + host + "\": " + gai_strerror(error));
    const std::unique_ptr<addrinfo, AddrinfoDeleter> info(raw);
    sockaddr_storage address{};
    std::memcpy(&address, info->ai_addr, info->ai_addrlen);
    return address;
}

MHD_Result answer(void* context, MHD_Connection* connection, const char* url, const char* method, const char*,
                  const char*, size_t*, void**) {
    const auto& handler = *static_cast<const HttpServer::Handler*>(context);
    HttpResponse reply;
    try {
        reply = handler(method, url);
    } catch (const std::exception& e) {
        reply = {500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n"};
    }
    const std::unique_ptr<MHD_Response, ResponseDeleter> response(
        MHD_create_response_from_buffer(reply.body.size(), reply.body.data(), MHD_RESPMEM_MUST_COPY));
    if (!response) return MHD_NO;
    MHD_add_response_header(response.get(), MHD_HTTP_HEADER_CONTENT_TYPE, reply.content_type.c_str());
    return MHD_queue_response(connection, reply.status, response.get());
}

}  // namespace

HttpServer::HttpServer(const std::string& host, std::uint16_t port, Handler handler) : handler_(std::move(handler)) {
    const sockaddr_storage address = resolve(host, port);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG;
    if (address.ss_family == AF_INET6) flags |= MHD_USE_IPv6;
    // The logger goes first: microhttpd reports problems with the options after it through it.
    daemon_ = MHD_start_daemon(flags, port, nullptr, nullptr, &answer, &handler_,
                               MHD_OPTION_EXTERNAL_LOGGER, &log_from_microhttpd, nullptr,
                               MHD_OPTION_SOCK_ADDR, reinterpret_cast<const sockaddr*>(&address),
                               MHD_OPTION_CONNECTION_LIMIT, kConnectionLimit,
                               MHD_OPTION_CONNECTION_TIMEOUT, kConnectionTimeoutSeconds,
                               MHD_OPTION_END);
    if (!daemon_)
        throw DefiniteError("metrics.listen: cannot listen on " + host + ":" + std::to_string(port) +
                            " (the line before says why)");
    const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
    port_ = info ? info->port : port;
}

HttpServer::~HttpServer() {
    MHD_stop_daemon(daemon_);
}

}  // namespace outbox::observability
