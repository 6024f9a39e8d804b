"""``campaign merge DIRS... --out DIR``: shards' folders joined into one campaign folder.

The shards must be of one campaign (one digest). Their run folders are copied into ``--out``
(a run two folders both hold is taken from the first), and the result is the whole campaign as
shard 1/1: its findings page covers every run, and ``campaign run`` on it would run only what no
shard ran.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from harness.campaign import run
from harness.campaign.plan import Campaign, Shard
from harness.errors import HarnessError
from harness.explore import trial

WHOLE = Shard(1, 1)


def merge(folders: list[Path], out: Path) -> tuple[Campaign, int]:
    """The campaign merged into ``out``, and how many runs it holds."""
    docs = [run.read_state(f) for f in folders]
    digests = {d["digest"] for d in docs}
    if len(digests) != 1:
        raise HarnessError(
            f"campaign merge: the folders hold different campaigns ({', '.join(sorted(digests))}): merge shards of one"
        )
    campaign = Campaign.from_json(docs[0]["campaign"])
    if out.resolve() in {f.resolve() for f in folders}:
        raise HarnessError(f"campaign merge: --out {out} is one of the folders merged; give a new one")
    run.open_folder(out, campaign, WHOLE)
    out.mkdir(parents=True, exist_ok=True)
    for folder in folders:
        for planned in campaign.order():
            source, target = folder / planned.folder, out / planned.folder
            if (source / trial.RUN).exists() and not target.exists():
                shutil.copytree(source, target)
    done = run.finished(out, campaign.order())
    run.write_state(out, campaign, WHOLE, done)
    return campaign, len(done)
