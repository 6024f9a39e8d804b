"""The checker: a history in, findings out.

``anomalies`` defines and finds every anomaly of the stored records (the numpy engine);
``spark_engine`` computes the same JSON with Spark for histories beyond one machine;
``client`` turns the apps' own reports into findings; ``sinks`` counts effects outside
Kafka per input; ``synthetic`` makes clean histories and single-anomaly mutations that
test them.
"""
