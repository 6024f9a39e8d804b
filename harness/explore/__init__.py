"""Explore: random fault schedules from a seed against a real cluster, replayed with a measured
reproduction rate, and shrunk to a scenario file anyone can run.

``kafka-harness explore --like B1 --seed 7 --runs 40`` keeps a pair's guarantee side (its
workload, configuration, expectations and checks) and runs it again and again, each time
under a schedule drawn from the seed alone (``draw``, against the roles and progress
triggers its workload offers: ``targets``), on one cluster reused while it stays healthy
(``run``, ``clusters``). A run fails when the guarantee does not hold or an app reports an
error the pair does not allow (``trial``); failing runs are kept whole, the others leave their
verdict. ``replay`` runs a kept schedule again and counts how often it fails; ``shrink``
makes it smaller within a budget of runs and writes a scenario file (``scenario_file``) that
``kafka-harness run FILE`` runs as a pair. ``page`` draws the exploration's index.html.
The schedules are in the one JSON form of ``harness.faults.serial``.
"""
