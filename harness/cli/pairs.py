"""``kafka-harness run``, ``check`` and ``report``: scenario pairs run on a fresh cluster, a
saved run checked again, and the index over a runs directory; their verdicts as text or JSON.

Exit status of ``run`` and ``check``: the outcome's (``Outcome.exit_code``: 0 passed or reported, 1
a guarantee violated, 3 inconclusive or unknown); over several pairs, of their outcomes combined
(a violation wins, then unknown: ``Outcome.worst``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import scenarios
from harness import provision
from harness.cli.options import add_versions, settings_of
from harness.errors import HarnessError
from harness.jvm import java_clients
from harness.progress import say
from harness.scenario import on_client
from harness.verdict.document import PairVerdict, side_outcome
from harness.verdict.outcome import Outcome
from harness.verdict.summary import pair_summary, stability_table
from harness.workloads import librdkafka_versions
from harness.workloads.clients import ClientSpec


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
    settings = settings_of(args)
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
    return Outcome.worst(p.outcome for p in pairs).exit_code


def cmd_check(args: argparse.Namespace) -> int:
    from harness.recheck import recheck

    verdict = recheck(Path(args.run_dir), args.engine, args.master)
    if isinstance(verdict, PairVerdict):
        print(json.dumps(verdict.to_json(), indent=2) if args.json else pair_summary(verdict), flush=True)
        return verdict.outcome.exit_code
    outcome = side_outcome(verdict)
    print(json.dumps(verdict.to_json(), indent=2) if args.json else "\n".join([outcome.upper(), *verdict.reasons]))
    return outcome.exit_code


def cmd_report(args: argparse.Namespace) -> int:
    from harness.report import index

    runs_dir = settings_of(args).runs_dir
    if not runs_dir.is_dir():
        raise HarnessError(f"no runs directory {runs_dir}; run a scenario first (kafka-harness run A1) or name one")
    print(index.build(runs_dir, rebuild=args.rebuild), flush=True)
    return 0


def add_run(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
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
    add_versions(sp)
    sp.set_defaults(func=cmd_run)


def add_check(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("check", help="check a saved run again, with the numpy or the Spark engine")
    sp.add_argument("run_dir", metavar="RUN_DIR", help="a run folder (runs/<time>-<scenario>-<id>) or one side of it")
    sp.add_argument("--engine", choices=["python", "spark"], default="python", help="checker engine (default python)")
    sp.add_argument("--master", default="local[2]", help="Spark master URL for --engine spark (default local[2])")
    sp.add_argument("--json", action="store_true", help="print the verdict JSON instead of the summary")
    sp.set_defaults(func=cmd_check)


def add_report(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("report", help="write index.html over a runs directory (and any missing run report)")
    sp.add_argument("runs_dir", nargs="?", metavar="RUNS_DIR", help="default: ./runs (KEH_RUNS_DIR)")
    sp.add_argument("--rebuild", action="store_true", help="write every run's report.html again")
    sp.set_defaults(func=cmd_report)
