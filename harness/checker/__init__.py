"""The checker: a history in, findings out.

``catalogue`` declares every finding; ``anomalies`` finds every anomaly of the stored
records (the numpy engine, ``check`` runs it); the ``spark`` package computes the same JSON
with Spark for histories beyond one machine, a function per anomaly named as numpy's;
``result`` holds what both engines find; ``client`` turns the apps' own reports into
findings; ``sinks`` counts effects outside Kafka per input. The synthetic histories that test
them live with the tests (``tests/harness/checker/synthetic.py``).
"""
