"""``kafka-harness check-app``: its arguments made into the user's ``AppRequest``, run once
(harness.userapps.check_app) or, with ``--explore N``, under N drawn schedules
(harness.explore.user_app)."""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.cli.options import settings_of
from harness.explore import draw, user_app
from harness.settings import KNOWN_KAFKA_VERSIONS
from harness.userapps import check_app
from harness.userapps.check_app import ISOLATION_LEVELS, AppRequest
from harness.userapps.workload import IDLE_TIMEOUT_S


def request_of(args: argparse.Namespace) -> AppRequest:
    return AppRequest(
        args.cmd,
        args.input_topic,
        args.output_topic,
        instances=args.instances,
        inputs=args.inputs,
        partitions=args.partitions,
        input_mode=args.input,
        like=args.like or "",
        schedule=args.schedule or "",
        no_faults=args.no_faults,
        reference=not args.no_reference,
        extract=args.extract or "",
        output_isolation=args.output_isolation,
        idle_timeout_s=args.idle_timeout,
        kafka_version=args.kafka_version or "",
        junit=Path(args.junit) if args.junit else None,
        json=args.json,
    )


def cmd_check_app(args: argparse.Namespace) -> int:
    request = request_of(args)
    if args.explore:
        return user_app.explore(
            request,
            settings_of(args),
            args.explore,
            seed=args.seed,
            faults=args.faults,
            stop_on_failure=args.stop_on_failure,
        )
    return check_app.run(request, settings_of(args))


def add_check_app(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser(
        "check-app",
        help="run your own consume-transform-produce app under faults and judge each input exactly once",
        description="Run your app as it is (docs/your-app.md: the environment it gets, how its outputs name "
        "their inputs) under a fault schedule, and judge each input exactly once.",
    )
    sp.add_argument("--cmd", required=True, help='your app\'s command line, e.g. "python my_app.py" (no shell)')
    sp.add_argument("--input-topic", required=True, help="the topic the harness creates and fills for your app")
    sp.add_argument("--output-topic", required=True, help="the topic your app writes its outputs to")
    sp.add_argument("--instances", type=int, default=1, help="instances run at once, in one group (default 1)")
    sp.add_argument("--inputs", type=int, help="input records (default 1000, or the --like scenario's)")
    sp.add_argument(
        "--input",
        choices=("live", "before"),
        help="write the input while your app runs, in bursts and pauses (live: the default with --like and "
        "--explore), or all of it before it starts (before: the default otherwise)",
    )
    sp.add_argument("--partitions", type=int, help="partitions of both topics (default 3, or the scenario's)")
    faults = sp.add_mutually_exclusive_group()
    faults.add_argument("--like", metavar="SCENARIO", help="use that scenario's fault schedule (e.g. B1)")
    faults.add_argument("--schedule", metavar="FILE", help="a fault schedule in JSON (docs/your-app.md)")
    faults.add_argument("--no-faults", action="store_true", help="no faults: a sunny-day run")
    sp.add_argument(
        "--no-reference",
        action="store_true",
        help="do not run the reference at-least-once app under the same schedule (faster; a pass then "
        "rests on where the faults hit alone)",
    )
    sp.add_argument(
        "--extract", metavar="MODULE:FUNCTION", help="your function naming an output's input (docs/your-app.md)"
    )
    sp.add_argument(
        "--output-isolation",
        choices=ISOLATION_LEVELS,
        default="read_committed",
        help="how your output's consumers read it (default read_committed)",
    )
    sp.add_argument(
        "--idle-timeout",
        type=float,
        default=IDLE_TIMEOUT_S,
        metavar="S",
        help=f"stop the app after this long without progress (default {IDLE_TIMEOUT_S:.0f})",
    )
    sp.add_argument("--runs-dir", help="where run folders go (default: ./runs)")
    sp.add_argument("--junit", metavar="FILE", help="also write the result as JUnit XML to FILE")
    sp.add_argument("--json", action="store_true", help="print the verdict JSON instead of the summary")
    sp.add_argument("--kafka-version", help=f"Kafka version (tested: {', '.join(KNOWN_KAFKA_VERSIONS)})")
    sp.add_argument("--toxiproxy-version", help="Toxiproxy version")
    # --explore and its options come last, as users have seen them in --help.
    sp.add_argument(
        "--explore", type=int, default=0, metavar="N", help="run your app under N schedules drawn from --seed"
    )
    sp.add_argument("--seed", type=int, default=1, help="with --explore: the schedules come from it alone (default 1)")
    sp.add_argument("--stop-on-failure", action="store_true", help="with --explore: stop at the first failing run")
    sp.add_argument(
        "--faults",
        default="all",
        metavar="FAMILIES",
        help=f"with --explore: fault families to draw from: {', '.join(draw.USER_APP_FAMILIES)} (default all)",
    )
    sp.set_defaults(func=cmd_check_app)
