"""``kafka-harness``: list, run and explore scenarios, check your own app, verify configs.

It also builds images, indexes reports and cleans up leftovers.

Exit status: 0 success (a scenario pair passed, or a research pair was reported), 1 a
guarantee was violated, 3 a pair was inconclusive (its control showed nothing), 2 bad
input or environment (one line on stderr saying what to do), 130 interrupted.
``verify-config``: 0 no error finding and no violated guarantee, 1 otherwise.

Every command's arguments, and what it prints, live in a module of this package, one per
group of commands; the library below takes typed values, never parsed arguments. This module
puts the commands on one parser and turns a HarnessError into one line.
"""

from __future__ import annotations

import argparse
import sys

from harness import stopping
from harness.cli import campaign, catalogues, check_app, cluster, explore, pairs, verify_config
from harness.errors import HarnessError

# Every command, in the order --help lists them.
_COMMANDS = (
    catalogues.add_list,
    catalogues.add_findings,
    catalogues.add_faults,
    pairs.add_run,
    check_app.add_check_app,
    pairs.add_check,
    pairs.add_report,
    cluster.add_images,
    cluster.add_up,
    explore.add_explore,
    explore.add_bisect,
    explore.add_replay,
    explore.add_shrink,
    campaign.add_campaign,
    verify_config.add_verify_config,
    cluster.add_clean,
)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="kafka-harness", description=__doc__.splitlines()[0].replace("``kafka-harness``: ", "").capitalize()
    )
    p.add_argument("--verbose", action="store_true", help="print error details (log tails) too")
    sub = p.add_subparsers(dest="command", required=True)
    for add in _COMMANDS:
        add(sub)
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
