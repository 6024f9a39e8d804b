"""Verdicts: findings judged against a scenario's expectations (``judge``), and shown as text
(``summary``: a pair's summary, the stability table of repeated runs)."""
