"""A run's history: what the clients did and what the cluster stored.

``records`` is the id and value format every writer and reader shares; ``ledger`` is what
each app process writes as it happens; ``readback`` reads every touched partition back
after healing; ``columns`` loads ledgers and read-backs into numpy columns for the
checker (``memory`` tunes the allocator for that); ``lso_probe`` watches the last stable
offset during a run.
"""
