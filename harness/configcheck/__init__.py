"""``verify-config``: a user's broker, producer and consumer files checked against what the
scenarios show breaks delivery guarantees.

``properties`` reads ``.properties`` files as Java does; ``catalogue`` knows every
property, who reads it and its defaults; ``rules`` are the static checks; ``apply`` turns
the files into a run's settings; ``dynamic`` runs them through scenario pairs per Kafka
version; ``report`` is the table and JSON the command prints.
"""
