"""The cluster: three KRaft brokers behind Toxiproxy in Docker (``kafka``), the images they
run (``images``), Toxiproxy's API (``proxy``), SASL and ACLs for a secured cluster
(``security``), and the feature levels the brokers report (``features``). The Docker engine
itself is ``harness.docker_engine``, below every part that starts or stops containers."""
