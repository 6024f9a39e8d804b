"""The cluster: three KRaft brokers behind Toxiproxy in Docker (``kafka``), the images they
run (``images``), the Docker engine and its leftovers (``docker_engine``), Toxiproxy's API
(``proxy``), SASL and ACLs for a secured cluster (``security``), and the feature levels the
brokers report (``features``)."""
