"""``kafka-harness explore``, ``replay``, ``shrink`` and ``bisect``: their arguments and what they print.

- ``explore --like B1 --seed 7 --runs 40``: exit 1 if a run failed, 0 if none did;
  ``--dry-run`` prints every run's schedule as JSON and starts nothing;
- ``replay RUN_DIR --times 3``: the reproduction rate; exit 1 if a run failed again, else 0;
- ``shrink RUN_DIR --budget 15``: the shrunk schedule and the scenario file it wrote;
- ``bisect RUN_DIR --kafka 3.3.0..4.4.0`` (or ``--client librdkafka 2.0.2..2.16.1``): the last
  affected and first clean release, and the regression pair it wrote (``harness.explore.bisect``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.cli.options import add_versions, settings_of
from harness.errors import HarnessError
from harness.explore import bisect, draw, replay, run, words
from harness.explore.kept import Kept
from harness.explore.subject import Subject


def _exploration(args: argparse.Namespace) -> run.Exploration:
    for name in ("runs", "workers", "first_run"):
        if getattr(args, name) < 1:
            raise HarnessError(f"--{name.replace('_', '-')} must be 1 or more, not {getattr(args, name)}")
    if args.planted_bug < 0:
        raise HarnessError(f"--planted-bug must be 0 (off) or more, not {args.planted_bug}")
    allowed = tuple(n.strip() for n in (args.allow or "").split(",") if n.strip())
    subject = Subject(args.like, args.client or "", args.kafka_version or "", args.planted_bug, allowed)
    exploration = run.Exploration(
        subject, args.seed, args.runs, draw.families(args.faults), args.workers, args.stop_on_failure, args.first_run
    )
    subject.scenario()  # an unknown scenario, client or unsuitable bug: said before anything starts
    return exploration


def cmd_explore(args: argparse.Namespace) -> int:
    exploration = _exploration(args)
    docs = exploration.schedules()  # also refuses a workload explore cannot draw for
    if args.dry_run:
        shown = {
            "subject": exploration.subject.to_json(),
            "seed": args.seed,
            "first_run": args.first_run,
            "schedules": list(docs.values()),
        }
        print(json.dumps(shown, indent=2), flush=True)
        return 0
    settings = settings_of(args)
    folder, trials = run.explore(exploration, settings, settings.runs_dir)
    failing = [t for t in trials if t.failed]
    for t in trials:
        print(f"run {t.label['run']:>3}  {t.outcome:<12} {'; '.join(t.label['steps'])}", flush=True)
    print(f"{len(failing)} of {len(trials)} runs failed · page: {folder / 'index.html'}", flush=True)
    for t in failing:
        print(f"  {t.folder}: {t.reasons[0]}", flush=True)
    if failing:
        print(f"replay: kafka-harness replay {failing[0].folder} --times 3", flush=True)
        print(f"shrink: kafka-harness shrink {failing[0].folder} --budget 15", flush=True)
    return 1 if failing else 0


def cmd_replay(args: argparse.Namespace) -> int:
    kept = Kept.read(Path(args.run_dir))
    folder, trials = replay.replay(kept, args.times, settings_of(args))
    failed = sum(t.failed for t in trials)
    print(f"reproduced {failed} of {len(trials)} ({100 * failed / len(trials):.0f} %) · {folder}", flush=True)
    for t in trials:
        print(f"  {t.folder.name}: {t.outcome}" + (f": {t.reasons[0]}" if t.reasons else ""), flush=True)
    return 1 if failed else 0


def cmd_shrink(args: argparse.Namespace) -> int:
    kept = Kept.read(Path(args.run_dir))
    shrunk = replay.shrink_run(kept, args.budget, settings_of(args), Path(args.out) if args.out else None)
    for n, a in enumerate(shrunk.attempts, 1):
        print(f"  try {n:>2}: {a.change:<40} {a.steps} step(s)  {'failed' if a.failed else 'did not fail'}")
    before, after = len(kept.doc["steps"]), len(shrunk.doc["steps"])
    print(f"shrunk from {before} to {after} step(s) in {len(shrunk.attempts)} runs:", flush=True)
    for line in words.step_lines(shrunk.doc):
        print(f"  {line}", flush=True)
    print(f"scenario: {shrunk.scenario} (kafka-harness run {shrunk.scenario})", flush=True)
    print(f"replay:   kafka-harness replay {shrunk.proof} --times 3", flush=True)
    return 0


def cmd_bisect(args: argparse.Namespace) -> int:
    if bool(args.kafka) == bool(args.client):
        raise HarnessError("bisect over one axis: --kafka LO..HI, or --client librdkafka|java LO..HI")
    axis, span = ("kafka", args.kafka) if args.kafka else (args.client[0], args.client[1])
    kept = Kept.read(Path(args.run_dir))
    chosen = bisect.releases(axis, span)  # bad input: one line, before anything starts
    found = bisect.bisect(kept, axis, chosen, args.times, settings_of(args), Path(args.out) if args.out else None)
    for p in found.in_order():
        state = "affected" if p.affected else "clean"
        print(f"  {axis} {p.release:<8} {p.failed} of {len(p.outcomes)} failed  {state}", flush=True)
    for boundary in found.boundaries:
        print(f"{axis}: {bisect.describe(boundary)}", flush=True)
    if found.pair:
        print(f"pair: {found.pair} (kafka-harness run {found.pair})", flush=True)
    return 0


def add_explore(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("explore", help="run a pair's guarantee side under random fault schedules drawn from a seed")
    sp.add_argument(
        "--like", required=True, metavar="SCENARIO", help="the pair whose guarantee side is explored, e.g. B1"
    )
    sp.add_argument("--seed", type=int, default=1, help="the schedules come from it alone (default 1)")
    sp.add_argument("--runs", type=int, default=20, metavar="N", help="how many runs (default 20)")
    sp.add_argument(
        "--first-run",
        type=int,
        default=1,
        metavar="K",
        help="start at run K of the seed (default 1): machines given disjoint ranges share one exploration",
    )
    sp.add_argument(
        "--faults",
        default="all",
        metavar="FAMILIES",
        help=f"fault families to draw from, comma-separated: {', '.join(draw.FAMILIES)} (default all)",
    )
    sp.add_argument("--workers", type=int, default=1, metavar="N", help="clusters side by side (default 1)")
    sp.add_argument("--dry-run", action="store_true", help="print the schedules as JSON; start nothing")
    sp.add_argument("--stop-on-failure", action="store_true", help="stop at the first failing run")
    sp.add_argument(
        "--planted-bug",
        type=int,
        default=0,
        metavar="N",
        help="testing explore itself: the transformer commits every N-th transaction's offsets outside it (0: off)",
    )
    sp.add_argument(
        "--allow",
        metavar="FINDINGS",
        help="findings the explored side may show, comma-separated (e.g. app_fenced): look past them",
    )
    sp.add_argument("--client", metavar="CLIENT", help="the apps' client (as for run)")
    sp.add_argument("--runs-dir", help="where the exploration's folder goes (default: ./runs)")
    add_versions(sp)
    sp.set_defaults(func=cmd_explore)


def add_bisect(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("bisect", help="replay a failing run on releases by binary search: last affected, first clean")
    sp.add_argument("run_dir", metavar="RUN_DIR", help="a failing run folder of explore")
    sp.add_argument("--kafka", metavar="LO..HI", help="bisect over the brokers' Kafka releases, e.g. 3.3.0..4.4.0")
    sp.add_argument(
        "--client",
        nargs=2,
        metavar=("CLIENT", "LO..HI"),
        help="bisect over a client's releases: librdkafka 2.0.2..2.16.1, or java 3.3.0..4.4.0",
    )
    sp.add_argument("--times", type=int, default=3, metavar="K", help="replays per release (default 3)")
    sp.add_argument("--out", metavar="FILE", help="the regression pair file (default: in the bisect folder)")
    sp.set_defaults(func=cmd_bisect)


def add_replay(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("replay", help="run a kept run's schedule again and print how often it fails")
    sp.add_argument("run_dir", metavar="RUN_DIR", help="a run folder of explore, e.g. runs/explore-7/run-003")
    sp.add_argument("--times", type=int, default=3, metavar="N", help="how many runs (default 3)")
    sp.set_defaults(func=cmd_replay)


def add_shrink(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("shrink", help="make a failing run's schedule smaller and write a scenario file")
    sp.add_argument("run_dir", metavar="RUN_DIR", help="a failing run folder of explore")
    sp.add_argument("--budget", type=int, default=15, metavar="N", help="runs it may take (default 15)")
    sp.add_argument("--out", metavar="FILE", help="the scenario file (default: in the shrink folder)")
    sp.set_defaults(func=cmd_shrink)
