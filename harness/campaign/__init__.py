"""Campaigns: a matrix of explored sides x releases x clients x fault families x seeds, run
unattended for a budget, resumable and sharded (plan, run, merge), every failure reduced to a
signature (signature), labelled against known upstream issues (triage, known_issues.toml), and
shown on a findings page (findings). The command: ``kafka-harness campaign`` (commands)."""
