"""kafka-eos-harness: exactly-once and delivery guarantees of Kafka, tested on a real cluster."""
