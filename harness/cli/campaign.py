"""``kafka-harness campaign``: ``run`` (a matrix, or a shard of it, for a budget, resumable),
``merge`` (shards' folders into one) and ``findings`` (the page drawn again, its rows printed).

``campaign run`` and ``campaign findings`` exit 1 when a signature is *unknown* (a candidate
finding), else 0; bad input is one line and exit 2, nothing started.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from harness.campaign import findings, merge, plan, run
from harness.cli.options import settings_of
from harness.errors import HarnessError
from harness.explore import draw

_MATRIX = ("sides", "kafka", "clients", "faults", "seeds", "runs")


def _campaign(args: argparse.Namespace, folder: Path) -> plan.Campaign:
    """From ``--file``, or the flags, or (neither) the campaign ``folder`` already holds."""
    flags = [name for name in _MATRIX if getattr(args, name) is not None]
    if args.file and flags:
        raise HarnessError(f"campaign run: --file or the matrix flags ({', '.join('--' + f for f in flags)}), not both")
    if args.file:
        return plan.Campaign.read(Path(args.file))
    if flags:
        if args.sides is None or args.kafka is None:
            raise HarnessError(
                "campaign run: --sides and --kafka are required (or --file, or a campaign folder to continue)"
            )
        return plan.Campaign.of(
            _list(args.sides),
            kafka=_list(args.kafka),
            clients=_list(args.clients) if args.clients is not None else [""],
            families=_list(args.faults or "all"),
            seeds=[_number(s, "--seeds") for s in _list(args.seeds or "1")],
            runs=args.runs or 5,
        )
    if (folder / run.CAMPAIGN).exists():
        return plan.Campaign.from_json(run.read_state(folder)["campaign"])
    raise HarnessError(
        f"campaign run: no matrix given and {folder} holds no campaign; give --file or --sides and --kafka"
    )


def cmd_run(args: argparse.Namespace) -> int:
    folder = Path(args.out)
    campaign = _campaign(args, folder)
    shard = plan.Shard.parse(args.shard) if args.shard else _shard_of(folder)
    if args.workers < 1 or args.hours <= 0:
        raise HarnessError("campaign run: --workers must be 1 or more and --hours above 0")
    run.open_folder(folder, campaign, shard)  # another campaign's folder: said before anything starts
    if args.dry_run:
        for planned in campaign.share(shard):
            print(json.dumps({"run": planned.folder, "schedule": campaign.schedule(planned)}), flush=True)
        return 0
    run.run(campaign, folder, settings_of(args), shard, args.workers, args.hours)
    return _print_findings(folder)


def cmd_merge(args: argparse.Namespace) -> int:
    campaign, done = merge.merge([Path(f) for f in args.folders], Path(args.out))
    print(
        f"merged {len(args.folders)} folders: {done} of {len(campaign.order())} runs of campaign "
        f"{campaign.digest} -> {args.out}"
    )
    return _print_findings(Path(args.out))


def cmd_findings(args: argparse.Namespace) -> int:
    """The page drawn from the run folders as they are (a campaign may still be running in it)."""
    folder = Path(args.folder)
    campaign, shard = plan.Campaign.from_json(run.read_state(folder)["campaign"]), _shard_of(folder)
    run.write_state(folder, campaign, shard, run.finished(folder, campaign.share(shard), tidy=False))
    if args.markdown:
        print(findings.markdown(json.loads((folder / findings.FINDINGS_JSON).read_text())), flush=True)
        return 0
    return _print_findings(folder)


def _print_findings(folder: Path) -> int:
    doc = json.loads((folder / findings.FINDINGS_JSON).read_text())
    outcomes = ", ".join(f"{n} {o}" for o, n in sorted(doc["outcomes"].items()))
    print(
        f"{doc['runs']} of {doc['planned']} runs: {outcomes or 'none yet'} · {len(doc['signatures'])} signatures",
        flush=True,
    )
    for row in doc["signatures"]:
        print(f"  {row['count']:>4}  {100 * row['rate']:>3.0f} %  {row['label']:<45} {row['text']}", flush=True)
        print(f"        first: {folder / row['first_run']}", flush=True)
    print(f"page: {folder / findings.FINDINGS_HTML}", flush=True)
    return 1 if any(row["kind"] == "unknown" for row in doc["signatures"]) else 0


def _shard_of(folder: Path) -> plan.Shard:
    if (folder / run.CAMPAIGN).exists():
        index, count = run.read_state(folder)["shard"]
        return plan.Shard(index, count)
    return plan.Shard(1, 1)


def _list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",")]


def _number(text: str, flag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise HarnessError(f"{flag}: {text!r} is not a number") from None


def add_campaign(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("campaign", help="run a matrix of explorations unattended; merge shards; triage the failures")
    commands = sp.add_subparsers(dest="campaign_command", required=True)

    cp = commands.add_parser("run", help="run a campaign (or one shard of it) for a budget; run again to continue")
    cp.add_argument("--out", required=True, metavar="DIR", help="the campaign's folder: made, or continued")
    cp.add_argument("--file", metavar="FILE", help="the matrix as a TOML file (docs/campaign.md)")
    cp.add_argument("--sides", metavar="PAIRS", help="pairs explored, comma-separated: ids, or a letter for a group")
    cp.add_argument("--kafka", metavar="RELEASES", help="the brokers' Kafka releases, comma-separated")
    cp.add_argument(
        "--clients",
        metavar="CLIENTS",
        help="clients as --client takes them, comma-separated (default: each side's own)",
    )
    cp.add_argument(
        "--faults", metavar="FAMILIES", help=f"fault families, each a cell: {', '.join(draw.FAMILIES)} (default all)"
    )
    cp.add_argument("--seeds", metavar="SEEDS", help="seeds, comma-separated (default 1)")
    cp.add_argument("--runs", type=int, metavar="N", help="runs per cell (default 5)")
    cp.add_argument("--shard", metavar="I/N", help="run shard I of N: every N-th run from the I-th (default 1/1)")
    cp.add_argument("--workers", type=int, default=1, metavar="N", help="clusters side by side (default 1)")
    cp.add_argument("--hours", type=float, default=24.0, metavar="H", help="no run starts after H hours (default 24)")
    cp.add_argument(
        "--dry-run", action="store_true", help="print this shard's runs and schedules as JSON lines; start nothing"
    )
    cp.set_defaults(func=cmd_run)

    mp = commands.add_parser("merge", help="join shards' folders into one campaign folder, and its findings page")
    mp.add_argument("folders", nargs="+", metavar="DIR", help="the shards' campaign folders")
    mp.add_argument("--out", required=True, metavar="DIR", help="the merged campaign's folder")
    mp.set_defaults(func=cmd_merge)

    fp = commands.add_parser("findings", help="draw a campaign's findings page again and print its rows")
    fp.add_argument("folder", metavar="DIR", help="a campaign's folder")
    fp.add_argument(
        "--markdown", action="store_true", help="the coverage and the rows as Markdown (for docs/findings/)"
    )
    fp.set_defaults(func=cmd_findings)
