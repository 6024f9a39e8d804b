"""Run reports: ``report.html`` per pair's run folder, the index over a runs directory, and
JUnit XML for CI.

- ``run_folder``: what a run folder holds (verdicts, ledger lines, read-backs, anomalous records, what is missing);
- ``verdicts``: verdict documents read back, and each side's rows of expected against observed;
- ``series``: the numbers the plots are drawn from (rates, unavailability, marks, faults, incarnations);
- ``figures``: the plotly figures;
- ``page``: ``report.html`` from ``templates/report.html.j2``;
- ``index``: ``index.html`` over a runs directory, with the stability of repeated runs;
- ``junit``: JUnit XML of pairs and of verify-config;
- ``screenshot``: a page opened in headless Chromium.
"""
