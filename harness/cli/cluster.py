"""``kafka-harness images``, ``up`` and ``clean``: the cluster outside any run, its images
built, one kept up until interrupted, and the leftovers of killed runs removed."""

from __future__ import annotations

import argparse
import sys
import threading

from harness import docker_engine
from harness.cli.options import add_versions, settings_of
from harness.cluster import images
from harness.progress import say


def cmd_images(args: argparse.Namespace) -> int:
    for name in images.ensure(settings_of(args)):
        say(f"{name} is ready")
    return 0


def cmd_up(args: argparse.Namespace) -> int:
    from harness.cluster.kafka import KafkaCluster

    with KafkaCluster(settings_of(args)) as cluster:
        print(f"bootstrap.servers={cluster.bootstrap_servers()}", flush=True)
        print("cluster is up; Ctrl-C (or SIGTERM) stops and removes it", file=sys.stderr, flush=True)
        threading.Event().wait()
    return 0


def cmd_clean(args: argparse.Namespace) -> int:
    removed = docker_engine.remove_leftovers(include_live=args.all)
    print("\n".join(removed) if removed else "nothing to clean")
    return 0


def add_images(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("images", help="build (or pull, when overridden) the broker and Toxiproxy images")
    sp.add_argument("action", choices=["build"])
    add_versions(sp)
    sp.set_defaults(func=cmd_images)


def add_up(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("up", help="start a cluster and keep it until interrupted")
    add_versions(sp)
    sp.set_defaults(func=cmd_up)


def add_clean(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sp = sub.add_parser("clean", help="remove containers and networks left by killed runs")
    sp.add_argument("--all", action="store_true", help="also remove clusters of runs still alive")
    sp.set_defaults(func=cmd_clean)
