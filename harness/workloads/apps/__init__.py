"""The workload apps themselves: the programs that run as their own OS processes
(``python -m harness.workloads.apps.<app> SPEC.json``) and write ledgers, so faults can
kill, stop and pause them for real."""
