"""What the harness takes from Maven Central and runs on a JVM: artifact closures
(``maven``), local Spark sessions with Kafka's connector (``spark``), and the Java workload
apps with Kafka's Java client of the version asked for (``java_clients``)."""
