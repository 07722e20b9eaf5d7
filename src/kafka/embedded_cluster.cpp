#include "outbox/kafka/embedded_cluster.hpp"

#include <stdexcept>

#include "outbox/util/errors.hpp"

namespace outbox::kafka {

EmbeddedCluster::EmbeddedCluster(int broker_count) {
    ConfPtr conf(rd_kafka_conf_new());
    char error[256];
    // The owning handle never talks to a broker; silence its "no bootstrap servers" notice.
    rd_kafka_conf_set(conf.get(), "log_level", "3", error, sizeof error);
    owner_.reset(rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error, sizeof error));
    if (!owner_) throw DefiniteError(std::string("embedded Kafka: cannot create handle: ") + error);
    conf.release();  // rd_kafka_new took it
    cluster_ = rd_kafka_mock_cluster_new(owner_.get(), broker_count);
    if (!cluster_) throw DefiniteError("embedded Kafka: cannot start a mock cluster");
}

EmbeddedCluster::~EmbeddedCluster() {
    if (cluster_) rd_kafka_mock_cluster_destroy(cluster_);
}

std::string EmbeddedCluster::bootstrap_servers() const { return rd_kafka_mock_cluster_bootstraps(cluster_); }

}  // namespace outbox::kafka
