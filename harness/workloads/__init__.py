"""Client workloads run as separate OS processes, each writing its ledger."""
