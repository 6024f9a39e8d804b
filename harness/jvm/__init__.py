"""What the harness takes from Maven Central and runs on a JVM: artifact closures
(``maven``), and local Spark sessions with Kafka's connector (``spark``)."""
