"""Scenario modules: each defines SCENARIO, a control/guarantee pair (see harness.scenario)."""
