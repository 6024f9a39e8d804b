"""What several commands share: the brokers' and Toxiproxy's version options, and the run's
settings from a command's arguments.

Apart from ``harness.cli`` itself, which imports every command's module: they import this one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness import versions
from harness.settings import DEFAULT_KAFKA_VERSION, KNOWN_KAFKA_VERSIONS, OLDEST_KAFKA_VERSION, Settings

KAFKA_VERSION_HELP = (
    f"Kafka version of the brokers: any release from {OLDEST_KAFKA_VERSION} on (KRaft), its image built on "
    f"first use; default {DEFAULT_KAFKA_VERSION}, tested: {', '.join(KNOWN_KAFKA_VERSIONS)}"
)


def add_versions(sp: argparse.ArgumentParser) -> None:
    """``--kafka-version`` and ``--toxiproxy-version``, as the commands that start a cluster take them."""
    sp.add_argument("--kafka-version", help=KAFKA_VERSION_HELP)
    sp.add_argument("--toxiproxy-version", help="Toxiproxy version")


def settings_of(args: argparse.Namespace) -> Settings:
    """The run's settings from whichever of ``--kafka-version``, ``--toxiproxy-version`` and
    ``--runs-dir`` (or a ``RUNS_DIR``) the command takes; its Kafka version checked before
    anything starts."""
    settings = Settings().with_overrides(
        kafka_version=getattr(args, "kafka_version", None),
        toxiproxy_version=getattr(args, "toxiproxy_version", None),
        runs_dir=Path(args.runs_dir) if getattr(args, "runs_dir", None) else None,
    )
    versions.kafka(settings.kafka_version)
    return settings
