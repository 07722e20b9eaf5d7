#include "outbox/observability/certificate_expiry.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <memory>

namespace outbox::observability {
namespace {

struct BioFree {
    void operator()(BIO* bio) const { BIO_free(bio); }
};
struct X509Free {
    void operator()(X509* certificate) const { X509_free(certificate); }
};

std::optional<std::int64_t> epoch_seconds(const ASN1_TIME* time) {
    struct tm parts {};
    if (!time || ASN1_TIME_to_tm(time, &parts) != 1) return std::nullopt;
    return static_cast<std::int64_t>(timegm(&parts));
}

}  // namespace

std::optional<std::int64_t> earliest_not_after(const std::string& path) {
    const std::unique_ptr<BIO, BioFree> file(BIO_new_file(path.c_str(), "r"));
    if (!file) {
        ERR_clear_error();
        return std::nullopt;
    }
    std::optional<std::int64_t> earliest;
    while (true) {
        const std::unique_ptr<X509, X509Free> certificate(PEM_read_bio_X509(file.get(), nullptr, nullptr, nullptr));
        if (!certificate) break;
        const auto not_after = epoch_seconds(X509_get0_notAfter(certificate.get()));
        if (not_after && (!earliest || *not_after < *earliest)) earliest = not_after;
    }
    // The read that ended the loop leaves "no start line" (or a parse error) on this thread's queue.
    ERR_clear_error();
    return earliest;
}

}  // namespace outbox::observability
