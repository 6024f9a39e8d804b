"""``kafka-harness verify-config``: the user's broker, producer and consumer .properties files
checked against the scenarios' rules and the reproduced bugs, then run through scenario pairs
(unless ``--static-only``); the report as a table, JSON or JUnit XML.

Exit status: 0 no error finding and no violated guarantee, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.cli.options import KAFKA_VERSION_HELP, settings_of
from harness.configcheck import dynamic
from harness.progress import say
from harness.workloads import clients
from harness.workloads.clients import ClientSpec


def cmd_verify_config(args: argparse.Namespace) -> int:
    from harness.cluster.kafka import KafkaCluster
    from harness.configcheck.report import verify
    from harness.kafkaconfig.catalogue import Kind

    given = {Kind.BROKER: args.broker, Kind.PRODUCER: args.producer, Kind.CONSUMER: args.consumer}
    client = ClientSpec.parse(args.client) if args.client else None
    named = [v.strip() for v in (args.kafka_versions or "").split(",") if v.strip()]
    report = verify(
        {kind: Path(path) for kind, path in given.items() if path},
        brokers=KafkaCluster.size if args.brokers is None else args.brokers,
        transactional=args.transactional,
        client=client,
        kafka_versions=named,
    )
    if not args.static_only:
        # Every argument is checked, and every release a bug row needs fetched, before the
        # first container starts.
        ids = args.scenarios.split(",") if args.scenarios else list(dynamic.DEFAULT_SCENARIOS)
        chosen = dynamic.choose([i.strip() for i in ids if i.strip()])
        base = settings_of(args)
        if client and client.version:
            clients.prepare(base, client.name, client.version)
        settings = dynamic.check_versions(named or [base.kafka_version], base)
        bug_runs = dynamic.bug_pairs(report.sections["static"], report.files, client, settings)
        report.dynamic = dynamic.run(report.files, chosen, settings, client, bug_runs)
    print(json.dumps(report.to_json(), indent=2) if args.json else report.table(), flush=True)
    if args.junit:
        from harness.configcheck import junit as verify_junit
        from harness.report import junit

        say(f"junit: {junit.write(verify_junit.tree(report), Path(args.junit))}")
    return report.exit_status()


def add_verify_config(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser(
        "verify-config", help="check broker, producer and consumer .properties files against the scenarios' rules"
    )
    sp.add_argument("--broker", metavar="FILE", help="the brokers' server.properties")
    sp.add_argument("--producer", metavar="FILE", help="the producer's properties (Java or librdkafka names)")
    sp.add_argument("--consumer", metavar="FILE", help="the consumer's properties (Java or librdkafka names)")
    sp.add_argument("--brokers", type=int, metavar="N", help="brokers in the cluster (default: the harness cluster's)")
    sp.add_argument(
        "--transactional",
        action="store_true",
        help="the pipeline is meant to be exactly-once (consume-transform-produce in transactions)",
    )
    sp.add_argument(
        "--client",
        metavar="CLIENT[==VERSION]",
        help="the client that reads the producer and consumer files (default: inferred from the names used), "
        "optionally with its release for the bug rules and rows: librdkafka==2.1.0 (without one: the "
        "confluent-kafka installed here), java==3.7.1",
    )
    sp.add_argument(
        "--static-only",
        action="store_true",
        help="check the files without running them on a cluster",
    )
    sp.add_argument(
        "--scenarios",
        metavar="IDS",
        help="scenario pairs to run the files through, comma-separated "
        f"(default: {','.join(dynamic.DEFAULT_SCENARIOS)})",
    )
    # Several releases, not the one a run's settings take: kept apart from settings_of's kafka_version.
    sp.add_argument(
        "--kafka-version",
        dest="kafka_versions",
        metavar="VERSIONS",
        help="your brokers' Kafka versions, comma-separated: the bug rules check them and the dynamic run uses "
        f"each ({KAFKA_VERSION_HELP})",
    )
    sp.add_argument("--toxiproxy-version", help="Toxiproxy version")
    sp.add_argument("--runs-dir", help="where run folders go (default: ./runs)")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument("--junit", metavar="FILE", help="also write the findings and rows as JUnit XML to FILE")
    sp.set_defaults(func=cmd_verify_config)
