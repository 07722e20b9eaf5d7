#define BOOST_TEST_MODULE metrics_http
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "http_get.hpp"
#include "outbox/observability/endpoints.hpp"
#include "outbox/observability/http_server.hpp"
#include "outbox/observability/metrics.hpp"
#include "outbox/util/errors.hpp"

using namespace outbox::observability;
using namespace std::chrono_literals;

using outbox::test::http_request;

BOOST_AUTO_TEST_CASE(serves_metrics_and_health_over_http) {
    Metrics metrics;
    metrics.events_received.with({"public.outbox"}).add(12);
    HttpServer server("127.0.0.1", 0, [&](std::string_view method, std::string_view path) {
        return handle_request(metrics, method, path);
    });
    BOOST_REQUIRE(server.port() != 0);

    const auto scrape = http_request(server.port(), "GET", "/metrics");
    BOOST_TEST(scrape.status == 200);
    BOOST_TEST(scrape.headers.find("Content-Type: text/plain; version=0.0.4; charset=utf-8") != std::string::npos);
    BOOST_TEST(scrape.body == metrics.render());
    BOOST_TEST(scrape.body.find("outbox_router_events_received_total{table=\"public.outbox\"} 12\n") != std::string::npos);

    const auto health = http_request(server.port(), "GET", "/healthz");
    BOOST_TEST(health.status == 200);
    BOOST_TEST(health.body.starts_with("main loop: progressed "));

    const auto not_ready = http_request(server.port(), "GET", "/readyz");
    BOOST_TEST(not_ready.status == 503);
    BOOST_TEST(not_ready.body == "postgres: not streaming\nkafka: not checked yet\n");

    const auto probe = metrics.health.register_kafka_probe([] { return std::string(); });
    metrics.health.set_streaming(true);
    const auto ready = http_request(server.port(), "GET", "/readyz");
    BOOST_TEST(ready.status == 200);
    BOOST_TEST(ready.body == "postgres: streaming\nkafka: reachable\n");

    const auto head = http_request(server.port(), "HEAD", "/metrics");
    BOOST_TEST(head.status == 200);
    BOOST_TEST(head.body.empty());
    BOOST_TEST(http_request(server.port(), "GET", "/nothing").status == 404);
    BOOST_TEST(http_request(server.port(), "DELETE", "/metrics").status == 405);
}

BOOST_AUTO_TEST_CASE(a_slow_readiness_probe_does_not_hold_up_a_scrape) {
    Metrics metrics;
    std::atomic<bool> probing{false};
    const auto probe = metrics.health.register_kafka_probe([&] {
        probing = true;
        std::this_thread::sleep_for(1500ms);
        return std::string();
    });
    HttpServer server("127.0.0.1", 0, [&](std::string_view method, std::string_view path) {
        return handle_request(metrics, method, path);
    });
    std::thread slow([&] { http_request(server.port(), "GET", "/readyz"); });
    while (!probing) std::this_thread::sleep_for(10ms);
    const auto started = std::chrono::steady_clock::now();
    BOOST_TEST(http_request(server.port(), "GET", "/metrics").status == 200);
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    BOOST_TEST(elapsed.count() < 1000);
    slow.join();
}

BOOST_AUTO_TEST_CASE(a_handler_exception_becomes_a_500) {
    HttpServer server("127.0.0.1", 0, [](std::string_view, std::string_view) -> HttpResponse {
        throw std::runtime_error("renderer broke");
    });
    const auto reply = http_request(server.port(), "GET", "/metrics");
    BOOST_TEST(reply.status == 500);
    BOOST_TEST(reply.body == "internal error: renderer broke\n");
}

BOOST_AUTO_TEST_CASE(a_taken_port_or_unknown_host_is_a_definite_error) {
    HttpServer first("127.0.0.1", 0, [](std::string_view, std::string_view) { return HttpResponse{}; });
    BOOST_CHECK_THROW(HttpServer("127.0.0.1", first.port(), [](std::string_view, std::string_view) { return HttpResponse{}; }),
                      outbox::DefiniteError);
    BOOST_CHECK_THROW(HttpServer("no-such-host.invalid", 0, [](std::string_view, std::string_view) { return HttpResponse{}; }),
                      outbox::DefiniteError);
}
