"""``verify-config``: a user's broker, producer and consumer files checked against what the
scenarios show breaks delivery guarantees.

The files are read and their names resolved by ``harness.kafkaconfig``; here ``rules`` are
the static checks, ``bugs`` the reproduced bugs as rules over the user's versions; ``apply`` turns
the files into a run's settings; ``dynamic`` runs them through scenario pairs per Kafka
version; ``report`` is the table and JSON the command prints.
"""
