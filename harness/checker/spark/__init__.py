"""The checker's Spark engine: the same anomalies and the same JSON as the numpy engine, for
histories beyond one machine.

``engine`` runs a check on a Spark session; ``inputs`` reads the ledgers (by
``harness.history.ledger``'s rules) and the read-backs into DataFrames; ``context`` builds the
frames every anomaly shares (sessions, transactions, one row of facts per record id), as the numpy
engine's ``Context`` does; ``anomalies`` finds each anomaly with a function named as the numpy
engine's (``harness.checker.catalogue`` names both).

Every module here imports pyspark, the ``spark`` extra; without it importing this package
stops with one line saying how to install it.
"""

from harness.jvm.spark import require_pyspark

require_pyspark("the checker's Spark engine")
