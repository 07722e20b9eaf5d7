#include "outbox/kafka/tls_probe.hpp"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <optional>

#include "outbox/kafka/broker_address.hpp"
#include "outbox/kafka/socket_wait.hpp"
#include "outbox/kafka/tcp_connect.hpp"

namespace outbox::kafka {
namespace {

using Clock = std::chrono::steady_clock;

template <typename T, void (*Free)(T*)>
struct Deleter {
    void operator()(T* p) const { Free(p); }
};
using SslCtxPtr = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX, SSL_CTX_free>>;
using SslPtr = std::unique_ptr<SSL, Deleter<SSL, SSL_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509, X509_free>>;
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using Pkcs12Ptr = std::unique_ptr<PKCS12, Deleter<PKCS12, PKCS12_free>>;

std::optional<std::string> setting(const config::KafkaSettings& settings, std::string_view name) {
    std::optional<std::string> value;
    for (const auto& property : settings.properties)
        if (property.name == name) value = property.value;
    return value;
}

int key_password(char* buffer, int size, int, void* password) {
    const auto* text = static_cast<const std::string*>(password);
    const int length = std::min(size, static_cast<int>(text->size()));
    std::copy_n(text->data(), length, buffer);
    return length;
}

// The client certificate and key librdkafka was given, in any of its three forms (files, PEM
// text, a PKCS#12 key store); false when one is given but cannot be loaded.
bool use_client_certificate(SSL_CTX* ctx, const config::KafkaSettings& settings) {
    std::string password = setting(settings, "ssl.key.password").value_or("");
    void* password_arg = &password;
    if (const auto store = setting(settings, "ssl.keystore.location")) {
        std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(store->c_str(), "rb"), &std::fclose);
        if (!file) return false;
        const Pkcs12Ptr pkcs12(d2i_PKCS12_fp(file.get(), nullptr));
        EVP_PKEY* key = nullptr;
        X509* certificate = nullptr;
        const std::string store_password = setting(settings, "ssl.keystore.password").value_or("");
        if (!pkcs12 || PKCS12_parse(pkcs12.get(), store_password.c_str(), &key, &certificate, nullptr) != 1) return false;
        const KeyPtr owned_key(key);
        const X509Ptr owned_certificate(certificate);
        return SSL_CTX_use_certificate(ctx, certificate) == 1 && SSL_CTX_use_PrivateKey(ctx, key) == 1;
    }
    if (const auto file = setting(settings, "ssl.certificate.location")) {
        if (SSL_CTX_use_certificate_chain_file(ctx, file->c_str()) != 1) return false;
    } else if (const auto pem = setting(settings, "ssl.certificate.pem")) {
        const BioPtr bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
        const X509Ptr certificate(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
        if (!certificate || SSL_CTX_use_certificate(ctx, certificate.get()) != 1) return false;
    }
    if (const auto file = setting(settings, "ssl.key.location")) {
        SSL_CTX_set_default_passwd_cb(ctx, &key_password);
        SSL_CTX_set_default_passwd_cb_userdata(ctx, password_arg);
        return SSL_CTX_use_PrivateKey_file(ctx, file->c_str(), SSL_FILETYPE_PEM) == 1;
    }
    if (const auto pem = setting(settings, "ssl.key.pem")) {
        const BioPtr bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
        const KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, &key_password, password_arg));
        return key && SSL_CTX_use_PrivateKey(ctx, key.get()) == 1;
    }
    return true;
}

// Runs one non-blocking OpenSSL call until it succeeds (> 0), fails, or the deadline passes.
template <typename Call>
int until_done(SSL* ssl, int fd, Clock::time_point deadline, int cancel_fd, Call call) {
    for (;;) {
        const int result = call();
        if (result > 0) return result;
        const int reason = SSL_get_error(ssl, result);
        short events = 0;
        if (reason == SSL_ERROR_WANT_READ) events = POLLIN;
        else if (reason == SSL_ERROR_WANT_WRITE) events = POLLOUT;
        else return -1;
        if (!wait_for_socket(fd, events, deadline, cancel_fd)) return 0;
    }
}

// ApiVersions v0: every broker answers it before any SASL exchange.
std::string api_versions_request() {
    const std::string client_id = "outbox-router-tls-probe";
    std::string body;
    auto put16 = [&](int value) { body += static_cast<char>((value >> 8) & 0xff); body += static_cast<char>(value & 0xff); };
    put16(18);  // ApiVersions
    put16(0);   // version
    body.append("\0\0\0\1", 4);  // correlation id
    put16(static_cast<int>(client_id.size()));
    body += client_id;
    const auto size = static_cast<std::uint32_t>(body.size());
    std::string request{static_cast<char>(size >> 24), static_cast<char>(size >> 16), static_cast<char>(size >> 8),
                        static_cast<char>(size)};
    return request + body;
}

TlsProbeAnswer from_error_queue() {
    TlsProbeAnswer answer;
    const unsigned long error = ERR_peek_last_error();
    const int reason = ERR_GET_REASON(error);
    // OpenSSL reports a TLS alert from the peer as SSL_AD_REASON_OFFSET plus the alert's number.
    if (ERR_GET_LIB(error) == ERR_LIB_SSL && reason >= SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
        answer.outcome = TlsProbeAnswer::Outcome::refused;
        answer.alert = reason - SSL_AD_REASON_OFFSET;
        answer.description = SSL_alert_desc_string_long(answer.alert);
    }
    return answer;
}

}  // namespace

TlsProbeAnswer probe_tls_listener(const config::KafkaSettings& settings, const std::string& host_port,
                                  std::chrono::milliseconds budget, int cancel_fd) {
    const auto deadline = Clock::now() + budget;
    const auto address = parse_broker_address(host_port);
    if (!address) return {};
    ERR_clear_error();
    const SslCtxPtr ctx(SSL_CTX_new(TLS_client_method()));
    if (!ctx || !use_client_certificate(ctx.get(), settings)) return {};
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
    const TcpConnection connection = connect_tcp(*address, deadline, cancel_fd);
    if (connection.outcome != ConnectOutcome::connected) return {};
    const FileDescriptor& socket = connection.socket;
    const SslPtr ssl(SSL_new(ctx.get()));
    if (!ssl || SSL_set_fd(ssl.get(), socket.get()) != 1) return {};
    unsigned char numeric[sizeof(in6_addr)];
    if (inet_pton(AF_INET, address->host.c_str(), numeric) != 1 && inet_pton(AF_INET6, address->host.c_str(), numeric) != 1)
        SSL_set_tlsext_host_name(ssl.get(), address->host.c_str());  // SNI names hosts, never addresses
    ERR_clear_error();
    const int handshake = until_done(ssl.get(), socket.get(), deadline, cancel_fd, [&] { return SSL_connect(ssl.get()); });
    if (handshake < 0) return from_error_queue();
    if (handshake == 0) return {};
    const std::string request = api_versions_request();
    if (until_done(ssl.get(), socket.get(), deadline, cancel_fd,
                   [&] { return SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())); }) <= 0)
        return from_error_queue();
    char head[4];
    const int read = until_done(ssl.get(), socket.get(), deadline, cancel_fd, [&] { return SSL_read(ssl.get(), head, sizeof head); });
    if (read > 0) return {TlsProbeAnswer::Outcome::accepted, 0, {}};
    if (read < 0) return from_error_queue();
    return {};
}

}  // namespace outbox::kafka
