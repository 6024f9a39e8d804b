"""Users' own apps under faults: the contract an app is run by (``contract``), its instances and
how the harness knows they are done (``app``), its outputs judged per input (``output``), the
workload that puts them together (``workload``), the fault schedules it runs under
(``schedules``) and ``kafka-harness check-app`` (``check_app``). The pytest plugin
(harness.pytest_plugin) uses the same parts, one fixture at a time."""
