"""``kafka-harness``: list, run and explore scenarios, check your own app, verify configs.

It also builds images, indexes reports and cleans up leftovers.

Exit status: 0 success (a scenario pair passed, or a research pair was reported), 1 a
guarantee was violated, 3 a pair was inconclusive (its control showed nothing), 2 bad
input or environment (one line on stderr saying what to do), 130 interrupted.
``verify-config``: 0 no error finding and no violated guarantee, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

import scenarios
from harness import docker_engine, provision, stopping, versions
from harness.campaign import commands as campaign_commands
from harness.cluster import images
from harness.configcheck import dynamic
from harness.errors import HarnessError
from harness.explore import commands as explore_commands
from harness.jvm import java_clients
from harness.progress import say
from harness.scenario import on_client
from harness.settings import DEFAULT_KAFKA_VERSION, KNOWN_KAFKA_VERSIONS, OLDEST_KAFKA_VERSION, Settings
from harness.userapps import check_app
from harness.verdict.document import PairVerdict
from harness.verdict.summary import pair_summary, stability_table
from harness.workloads import clients, librdkafka_versions
from harness.workloads.clients import ClientSpec

EXIT = {"passed": 0, "reported": 0, "failed": 1, "inconclusive": 3}
KAFKA_VERSION_HELP = (
    f"Kafka version of the brokers: any release from {OLDEST_KAFKA_VERSION} on (KRaft), its image built on "
    f"first use; default {DEFAULT_KAFKA_VERSION}, tested: {', '.join(KNOWN_KAFKA_VERSIONS)}"
)


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings().with_overrides(
        kafka_version=getattr(args, "kafka_version", None),
        toxiproxy_version=getattr(args, "toxiproxy_version", None),
        runs_dir=Path(args.runs_dir) if getattr(args, "runs_dir", None) else None,
    )
    versions.kafka(settings.kafka_version)
    return settings


def cmd_list(args: argparse.Namespace) -> int:
    if args.markdown:
        print(scenarios.markdown_table())
        return 0
    found = scenarios.all_scenarios()
    if args.ids:
        print(" ".join(found))
    for sid, s in found.items() if not args.ids else ():
        print(f"{sid:<4} {s.title}")
    return 0


def cmd_findings(args: argparse.Namespace) -> int:
    from harness.checker import catalogue

    if args.markdown:
        print(catalogue.markdown_table())
    else:
        for d in catalogue.CATALOGUE:
            print(f"{d.name:<21} {d.source:<8} {d.meaning}")
    return 0


def cmd_faults(args: argparse.Namespace) -> int:
    from harness.faults import kinds

    if args.markdown:
        print(kinds.markdown_table())
    else:
        for k in kinds.registry().values():
            print(f"{k.name:<16} {k.family:<9} {k.summary}\n{'':<26} {k.make.__name__}({kinds.parameters(k)})")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from harness.cluster.kafka import KafkaCluster
    from harness.report import junit, screenshot
    from harness.report.index import Repeat
    from harness.report.page import REPORT
    from harness.report.run_folder import folder_of
    from harness.runner import run_pair

    # Unknown names, a malformed version, and a client a scenario cannot run on, fail before
    # Docker is touched; a release no registry has, before any container starts.
    chosen = [scenarios.get(sid) for sid in args.scenarios]
    if args.client:
        client = ClientSpec.parse(args.client)
        chosen = [on_client(s, client) for s in chosen]
        for s in chosen:
            for v in (s.control, s.guarantee):
                if v.client:
                    say(f"{s.id} {v.name} keeps the client it pins, {v.client} (--client {client} is for the others)")
    if args.repeat < 1:
        raise HarnessError(f"--repeat must be 1 or more, not {args.repeat}")
    if args.screenshot:
        screenshot.chromium()  # missing Chromium or playwright: said before any container starts
    settings = _settings(args)
    provision.prepare(settings, chosen)
    repeat = Repeat(settings.runs_dir, args.scenarios, args.repeat) if args.repeat > 1 else None
    pairs = []
    with KafkaCluster(settings) as cluster:
        for round_ in range(1, args.repeat + 1):
            for s in chosen:
                if args.repeat > 1:
                    say(f"round {round_} of {args.repeat}: {s.id}")
                pair = run_pair(cluster, s, settings.runs_dir)
                report = folder_of(pair) / REPORT
                print(json.dumps(pair.to_json(), indent=2) if args.json else pair_summary(pair), flush=True)
                if not args.json and report.exists():
                    print(f"report: {report}", flush=True)
                if repeat:
                    repeat.add(folder_of(pair))
                if args.screenshot and report.exists():
                    errors = screenshot.capture(report, report.with_name("report.png"))
                    say(
                        f"screenshot: {report.with_name('report.png')}"
                        + "".join(f"\n  script error: {e}" for e in errors)
                    )
                pairs.append(pair)
    if repeat:
        print(stability_table(pairs), flush=True)
        say(f"repeat: {repeat.path} (kafka-harness report shows its stability and spread)")
    if args.junit:
        say(f"junit: {junit.write(junit.pairs(pairs), Path(args.junit))}")
    return max(EXIT[p.outcome] for p in pairs)


def cmd_check(args: argparse.Namespace) -> int:
    from harness.recheck import recheck

    verdict = recheck(Path(args.run_dir), args.engine, args.master)
    if isinstance(verdict, PairVerdict):
        print(json.dumps(verdict.to_json(), indent=2) if args.json else pair_summary(verdict), flush=True)
        return EXIT[verdict.outcome]
    print(json.dumps(verdict.to_json(), indent=2) if args.json else "\n".join(verdict.reasons) or "passed")
    return 0 if verdict.passed else 1


def cmd_report(args: argparse.Namespace) -> int:
    from harness.report import index

    runs_dir = Path(args.runs_dir) if args.runs_dir else Settings().runs_dir
    if not runs_dir.is_dir():
        raise HarnessError(f"no runs directory {runs_dir}; run a scenario first (kafka-harness run A1) or name one")
    print(index.build(runs_dir, rebuild=args.rebuild), flush=True)
    return 0


def cmd_images(args: argparse.Namespace) -> int:
    for name in images.ensure(_settings(args)):
        say(f"{name} is ready")
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    from harness.cluster.kafka import KafkaCluster

    with KafkaCluster(_settings(args)) as cluster:
        print(f"bootstrap.servers={cluster.bootstrap_servers()}", flush=True)
        print("cluster is up; Ctrl-C (or SIGTERM) stops and removes it", file=sys.stderr, flush=True)
        threading.Event().wait()
    return 0


def cmd_clean(args: argparse.Namespace) -> int:
    removed = docker_engine.remove_leftovers(include_live=args.all)
    print("\n".join(removed) if removed else "nothing to clean")
    return 0


def cmd_verify_config(args: argparse.Namespace) -> int:
    from harness.cluster.kafka import KafkaCluster
    from harness.configcheck.report import verify
    from harness.kafkaconfig.catalogue import Kind

    given = {Kind.BROKER: args.broker, Kind.PRODUCER: args.producer, Kind.CONSUMER: args.consumer}
    client = ClientSpec.parse(args.client) if args.client else None
    named = [v.strip() for v in (args.kafka_version or "").split(",") if v.strip()]
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
        base = Settings().with_overrides(
            toxiproxy_version=args.toxiproxy_version, runs_dir=Path(args.runs_dir) if args.runs_dir else None
        )
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


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kafka-harness", description=__doc__.splitlines()[0].replace("``kafka-harness``: ", "").capitalize()
    )
    p.add_argument("--verbose", action="store_true", help="print error details (log tails) too")
    sub = p.add_subparsers(dest="command", required=True)

    def versions(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--kafka-version", help=KAFKA_VERSION_HELP)
        sp.add_argument("--toxiproxy-version", help="Toxiproxy version")

    sp = sub.add_parser("list", help="list scenarios with their one-line stories")
    sp.add_argument("--ids", action="store_true", help="only the ids, on one line (for scripts)")
    sp.add_argument("--markdown", action="store_true", help="every pair's expectation, as docs/scenarios.md's table")
    sp.set_defaults(func=cmd_list)

    sp = sub.add_parser("findings", help="list every finding the harness reports, with its source and meaning")
    sp.add_argument("--markdown", action="store_true", help="as docs/findings.md's table")
    sp.set_defaults(func=cmd_findings)

    sp = sub.add_parser("faults", help="list every fault kind: its family, what it does, its parameters")
    sp.add_argument("--markdown", action="store_true", help="as docs/faults.md's table")
    sp.set_defaults(func=cmd_faults)

    sp = sub.add_parser("run", help="run scenario pairs (control + guarantee) on a fresh cluster")
    sp.add_argument(
        "scenarios", nargs="+", metavar="SCENARIO", help="scenario ids, e.g. A1, or scenario files (e.g. from shrink)"
    )
    sp.add_argument("--json", action="store_true", help="print the verdict JSON instead of the summary")
    sp.add_argument(
        "--repeat", type=int, default=1, metavar="N", help="run every pair N times and print how stable each was"
    )
    sp.add_argument("--runs-dir", help="where run folders go (default: ./runs)")
    sp.add_argument("--junit", metavar="FILE", help="also write the sides' results as JUnit XML to FILE")
    sp.add_argument(
        "--screenshot",
        action="store_true",
        help="keep a screenshot of each pair's report as report.png (needs chromium and the dev extras)",
    )
    sp.add_argument(
        "--client",
        metavar="CLIENT[==VERSION]",
        help=f"the apps' client: librdkafka (default; confluent-kafka {librdkafka_versions.PINNED}) or java (Kafka's "
        "client of the cluster's version; a Streams scenario's kafka-streams), optionally with a release, fetched "
        f"on first use: librdkafka==2.1.0 (confluent-kafka, from {librdkafka_versions.OLDEST}) or java==3.7.1 "
        f"(from {java_clients.OLDEST_CLIENT_VERSION}); a scenario side that pins its own client keeps it",
    )
    versions(sp)
    sp.set_defaults(func=cmd_run)

    check_app.add_parser(sub)

    sp = sub.add_parser("check", help="check a saved run again, with the numpy or the Spark engine")
    sp.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (runs/<time>-<scenario>-<id>) or one side of it")
    sp.add_argument("--engine", choices=["python", "spark"], default="python", help="checker engine (default python)")
    sp.add_argument("--master", default="local[2]", help="Spark master URL for --engine spark (default local[2])")
    sp.add_argument("--json", action="store_true", help="print the verdict JSON instead of the summary")
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("report", help="write index.html over a runs directory (and any missing run report)")
    sp.add_argument("runs_dir", nargs="?", metavar="RUNS_DIR", help="default: ./runs (KEH_RUNS_DIR)")
    sp.add_argument("--rebuild", action="store_true", help="write every run's report.html again")
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("images", help="build (or pull, when overridden) the broker and Toxiproxy images")
    sp.add_argument("action", choices=["build"])
    versions(sp)
    sp.set_defaults(func=cmd_images)

    sp = sub.add_parser("up", help="start a cluster and keep it until interrupted")
    versions(sp)
    sp.set_defaults(func=cmd_up)

    explore_commands.add_parsers(sub, _settings, versions)
    campaign_commands.add_parsers(sub, _settings)

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
    sp.add_argument(
        "--kafka-version",
        metavar="VERSIONS",
        help="your brokers' Kafka versions, comma-separated: the bug rules check them and the dynamic run uses "
        f"each ({KAFKA_VERSION_HELP})",
    )
    sp.add_argument("--toxiproxy-version", help="Toxiproxy version")
    sp.add_argument("--runs-dir", help="where run folders go (default: ./runs)")
    sp.add_argument("--json", action="store_true", help="print the report as JSON")
    sp.add_argument("--junit", metavar="FILE", help="also write the findings and rows as JUnit XML to FILE")
    sp.set_defaults(func=cmd_verify_config)

    sp = sub.add_parser("clean", help="remove containers and networks left by killed runs")
    sp.add_argument("--all", action="store_true", help="also remove clusters of runs still alive")
    sp.set_defaults(func=cmd_clean)
    return p


def main(argv: list[str] | None = None) -> None:
    args = parser().parse_args(argv)
    stopping.install()  # Ctrl-C and SIGTERM: everything gone and exit 130/143 within seconds
    try:
        sys.exit(args.func(args))
    except HarnessError as exc:
        hint = " (--verbose shows details: tool output, container logs)" if exc.detail and not args.verbose else ""
        print(f"kafka-harness: error: {exc}{hint}", file=sys.stderr)
        if args.verbose and exc.detail:
            print(exc.detail, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
