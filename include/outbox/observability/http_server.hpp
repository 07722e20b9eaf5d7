#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

struct MHD_Daemon;

namespace outbox::observability {

struct HttpResponse {
    unsigned status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::string body;
};

// A small HTTP/1.1 server (GNU libmicrohttpd) answering every request with `handler`, each
// connection on its own thread so a slow /readyz probe never holds up a /metrics scrape.
class HttpServer {
public:
    using Handler = std::function<HttpResponse(std::string_view method, std::string_view path)>;

    // Listens on `host` (a name or numeric IPv4/IPv6 address; the first address it resolves to)
    // and `port` (0: any free port). Throws DefiniteError when it cannot.
    HttpServer(const std::string& host, std::uint16_t port, Handler handler);
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;
    ~HttpServer();  // stops accepting and waits for running requests

    std::uint16_t port() const { return port_; }

private:
    Handler handler_;
    MHD_Daemon* daemon_ = nullptr;
    std::uint16_t port_ = 0;
};

}  // namespace outbox::observability
