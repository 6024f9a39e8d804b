"""Kafka's configuration as the harness knows it: every property the broker, the Java client
and librdkafka read, under which names, with which defaults (``catalogue``), and
``.properties`` files read the way Java reads them (``properties``). Below the workloads,
which translate settings between the clients, and ``verify-config``, which checks users' files."""
