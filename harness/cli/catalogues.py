"""``kafka-harness list``, ``findings`` and ``faults``: what the harness holds (its scenario
pairs, the findings it reports, the fault kinds), as lines or as the docs' Markdown tables."""

from __future__ import annotations

import argparse

import scenarios


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


def add_list(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("list", help="list scenarios with their one-line stories")
    sp.add_argument("--ids", action="store_true", help="only the ids, on one line (for scripts)")
    sp.add_argument("--markdown", action="store_true", help="every pair's expectation, as docs/scenarios.md's table")
    sp.set_defaults(func=cmd_list)


def add_findings(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("findings", help="list every finding the harness reports, with its source and meaning")
    sp.add_argument("--markdown", action="store_true", help="as docs/findings.md's table")
    sp.set_defaults(func=cmd_findings)


def add_faults(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("faults", help="list every fault kind: its family, what it does, its parameters")
    sp.add_argument("--markdown", action="store_true", help="as docs/faults.md's table")
    sp.set_defaults(func=cmd_faults)
