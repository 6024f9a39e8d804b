"""Every signature labelled against the catalogue of known upstream issues: known on a release it
records, outside its releases (worth a look), by design, or unknown; the catalogue itself read
whole and covering every bug the README names."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness.campaign import triage
from harness.campaign.signature import CLIENT_ONLY, DATA, STOPPED, UNREACHED, Signature
from harness.errors import HarnessError

KNOWN = triage.catalogue()


def _label(signature: Signature, apis: set[str] | None = None, roles: set[str] | None = None) -> triage.Label:
    return triage.label(signature, frozenset(apis or ()), frozenset(roles or ()), KNOWN)


def test_a_bug_on_a_release_it_affects_is_known() -> None:
    found = _label(Signature(DATA, ("aborted_read",), (), "3.5.2", "librdkafka 2.16.0"), {"Produce"})
    assert (found.kind, found.issue and found.issue.id) == (triage.KNOWN, "KAFKA-14402")


def test_the_same_signature_past_its_fixed_release_is_worth_a_look() -> None:
    found = _label(Signature(DATA, ("aborted_read",), (), "4.4.0", "java 4.4.0"), {"Produce"})
    assert found.kind == triage.OUTSIDE and found.issue and found.issue.id == "KAFKA-14402"


def test_a_client_bug_is_matched_on_the_client_s_release() -> None:
    rewind = Signature(DATA, ("eos_repeated",), (), "4.4.0", "librdkafka 2.1.0")
    assert str(_label(rewind)) == "known (librdkafka#4261)"
    assert _label(Signature(DATA, ("eos_repeated",), (), "4.4.0", "java 3.9.1")).kind == triage.UNKNOWN


def test_documented_behaviour_is_by_design_but_an_in_range_bug_comes_first() -> None:
    fenced = Signature(STOPPED, (UNREACHED,), ("PRODUCER_FENCED",), "4.4.0", "java 4.4.0")
    assert _label(fenced).kind == triage.BY_DESIGN
    on_tv1 = Signature(STOPPED, (UNREACHED,), ("PRODUCER_FENCED",), "3.9.2", "java 3.9.2")
    found = _label(on_tv1)
    assert found.issue and (found.kind, found.issue.id) == (triage.KNOWN, "KAFKA-9803")
    assert "KIP-98 fencing" in found.others


def test_a_stuck_call_matches_the_issue_naming_it() -> None:
    stuck = Signature(STOPPED, (UNREACHED,), ("send_offsets_to_transaction stuck",), "4.4.0", "librdkafka 2.16.0")
    assert _label(stuck).kind == triage.KNOWN


def test_an_issue_tied_to_a_request_needs_a_fault_that_caught_it() -> None:
    invalid = Signature(STOPPED, (UNREACHED,), ("INVALID_TXN_STATE",), "4.4.0", "java 4.4.0")
    assert str(_label(invalid, {"EndTxn"})) == "known (KAFKA-20785)"
    assert _label(invalid, set()).kind == triage.OUTSIDE  # KAFKA-19690's error, on a release it left


def test_nothing_matching_is_unknown() -> None:
    assert _label(Signature(DATA, ("lost",), (), "4.4.0", "java 4.4.0")).kind == triage.UNKNOWN


def test_the_catalogue_names_every_bug_and_result_the_readme_names() -> None:
    readme = (Path(__file__).parents[3] / "README.md").read_text()
    named = set(re.findall(r"KAFKA-\d+", readme)) | {
        f"librdkafka#{n}" for n in re.findall(r"librdkafka #(\d+)", readme)
    }
    named |= {f"librdkafka#{n}" for n in re.findall(r"\[#(\d+)\]\(https://github.com/confluentinc/librdkafka", readme)}
    # Not pairs, and no release of them was ever affected or reproduced (README says so).
    named -= {"KAFKA-17635", "KAFKA-14172", "KAFKA-19999", "KAFKA-15784"}
    assert named - {e.id for e in KNOWN} == set()


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ('id = "X"\nlink = ""\ntitle = ""\ncomponent = "kafka"\naffected = ["3.3.0"]\nstatus = "open"', "LO..HI"),
        (
            'id = "X"\nlink = ""\ntitle = ""\ncomponent = "zk"\naffected = ["3.3.0..3.4.0"]\nstatus = "open"',
            "component",
        ),
        ('id = "X"\nlink = ""\ntitle = ""\ncomponent = "kafka"\naffected = []\nstatus = "maybe"', "status"),
        ('id = "X"\ncomponent = "kafka"', "catalogue"),
    ],
)
def test_a_malformed_catalogue_is_one_line(tmp_path: Path, entry: str, said: str) -> None:
    path = tmp_path / "k.toml"
    path.write_text(f"[[issue]]\n{entry}\n")
    with pytest.raises(HarnessError, match=said):
        triage.catalogue(path)


def test_duplicates_from_a_restarted_producer_are_by_design_only_when_an_app_was_restarted() -> None:
    resent = Signature(DATA, ("duplicate",), (), "4.4.0", "java 4.4.0")
    assert str(_label(resent, roles={"App", "Node"})) == "expected by design (KIP-98 idempotence per producer session)"
    assert _label(resent, roles={"Leader"}).kind == triage.UNKNOWN  # the brokers alone must not duplicate


def test_a_reader_stalled_past_the_transaction_timeout_is_a_hanging_transaction() -> None:
    waiting = Signature(CLIENT_ONLY, ("read_committed_stall",), (), "4.4.0", "java 4.4.0")
    assert _label(waiting).kind == triage.BY_DESIGN
    hanging = Signature(
        CLIENT_ONLY, ("read_committed_stall (past the transaction timeout)",), (), "4.4.0", "java 4.4.0"
    )
    assert _label(hanging, {"Produce"}).kind == triage.OUTSIDE  # KAFKA-14402's, on a release it left
    assert _label(hanging).kind == triage.UNKNOWN
