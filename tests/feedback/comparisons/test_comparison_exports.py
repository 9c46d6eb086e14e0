"""Judged comparisons as training data (docs/contract.md, "Comparisons"): `trl` and
`openai-dpo` carry their decisive pairs beside the pairs of corrections (ties left out, `trl`
lines with a `margin`), `comparisons` a line a judgment with its shown order; the three, and the
leaderboard, say the same thing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from core.accounts.roles import Role
from feedback.comparisons.judgments import JudgmentRequest, judgment_record
from feedback.comparisons.models import Comparison
from feedback.comparisons.queue import candidates_shown
from tests.builders import feedback, feedback_req, turn
from tests.factories import PrincipalFactory

if TYPE_CHECKING:
    from pathlib import Path

    from tests.harness import Actor

pytestmark = pytest.mark.django_db

PROMPT = "Name a prime."


def candidates(*components: str) -> dict[str, Any]:
    return {
        "prompt": PROMPT,
        "candidates": [
            {"response": f"{name} says", "component_name": name, "model": f"m-{name}"}
            for name in components
        ],
    }


def judged_as(who: str, comparison: int, best_first: list[str], strength: int = 1) -> None:
    """`who` judges the comparison: its candidates' components best first (two: `strength`
    says by how much; equal components of two: a tie)."""
    person = PrincipalFactory.build(role=Role.ANNOTATOR, name=who)
    shown = candidates_shown(comparison, who)
    of = {response.removesuffix(" says"): cid for cid, response in shown}
    if len(shown) == 2:
        first_better = of[best_first[0]] == shown[0][0]
        preference = 0 if strength == 0 else (-strength if first_better else strength)
        judgment = JudgmentRequest(preference=preference)
    else:
        judgment = JudgmentRequest(ranking=[of[name] for name in best_first])
    judgment_record(principal=person, comparison=comparison, judgment=judgment)


@pytest.fixture
def judged(agent: Actor) -> dict[str, int]:
    """a much better than b; b and c a tie; a ranking c > a > b."""
    body = {"comparisons": [candidates("a", "b"), candidates("b", "c"), candidates("a", "b", "c")]}
    sent = agent.rest("post", "/api/comparisons/", body).json()["comparisons"]
    ids = [c["id"] for c in sent]
    judged_as("ann", ids[0], ["a", "b"], strength=2)
    judged_as("ann", ids[1], ["b", "c"], strength=0)
    judged_as("ann", ids[2], ["c", "a", "b"])
    return {"ab": ids[0], "tie": ids[1], "ranked": ids[2]}


def _pairs(lines: list[dict[str, Any]]) -> set[tuple[str, str, int]]:
    return {(line["chosen"], line["rejected"], line["margin"]) for line in lines}


def test_trl_carries_each_decisive_pair_with_its_margin_and_no_tie(
    judged: dict[str, int], rev: Actor
) -> None:
    lines = rev.exported("trl")
    assert all(line["prompt"] == PROMPT for line in lines)
    assert sorted(_pairs(lines)) == sorted(
        {
            ("a says", "b says", 2),
            ("c says", "a says", 1),
            ("c says", "b says", 1),
            ("a says", "b says", 1),
        }
    )


def test_openai_dpo_carries_the_same_pairs_as_trl(judged: dict[str, int], rev: Actor) -> None:
    trl = sorted((line["chosen"], line["rejected"]) for line in rev.exported("trl"))
    dpo = sorted(
        (line["preferred_output"][0]["content"], line["non_preferred_output"][0]["content"])
        for line in rev.exported("openai-dpo")
    )
    assert dpo == trl
    assert all(
        line["input"]["messages"] == [{"role": "user", "content": PROMPT}]
        for line in rev.exported("openai-dpo")
    )


def test_the_comparisons_format_keeps_each_judgment_with_its_shown_order(
    judged: dict[str, int], rev: Actor
) -> None:
    lines = {line["comparison_id"]: line for line in rev.exported("comparisons")}
    assert len(lines) == 3
    ranked = lines[Comparison.objects.get(pk=judged["ranked"]).comparison_id]
    shown = [candidate["candidate_id"] for candidate in ranked["shown"]]
    assert shown == [cid for cid, _ in candidates_shown(judged["ranked"], "ann")]
    best_first = [ranked["shown"][i]["component_name"] for i in _by_rank(ranked["ranks"])]
    assert best_first == ["c", "a", "b"]
    assert (ranked["annotator"], ranked["preference"]) == ("ann", None)
    tie = lines[Comparison.objects.get(pk=judged["tie"]).comparison_id]
    assert (tie["ranks"], tie["preference"]) == ([0, 0], 0)


def _by_rank(ranks: list[int]) -> list[int]:
    return sorted(range(len(ranks)), key=ranks.__getitem__)


def test_the_comparisons_export_and_trl_say_the_same_pairs(
    judged: dict[str, int], rev: Actor
) -> None:
    from_judgments = set()
    for line in rev.exported("comparisons"):
        shown, ranks = line["shown"], line["ranks"]
        for i in range(len(shown)):
            for j in range(len(shown)):
                if ranks[i] < ranks[j]:
                    margin = abs(line["preference"] or 1)
                    from_judgments.add((shown[i]["response"], shown[j]["response"], margin))
    assert from_judgments == _pairs(rev.exported("trl"))


def test_the_leaderboard_counts_the_pairs_the_exports_carry(
    judged: dict[str, int], rev: Actor
) -> None:
    board = rev.rest("get", "/api/leaderboard/").json()
    tally = {entry["name"]: entry for entry in board["entries"]}
    wins = tally_of(rev.exported("comparisons"))
    for name, (won, lost, tied) in wins.items():
        assert (tally[name]["wins"], tally[name]["losses"], tally[name]["ties"]) == (
            won,
            lost,
            tied,
        )
    assert board["pairs"] == 5  # a-b, b-c (a tie), and the ranking's three


def tally_of(lines: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """Wins, losses and ties of each component, read off the comparisons export."""
    won: dict[str, list[int]] = {}
    for line in lines:
        shown, ranks = line["shown"], line["ranks"]
        for i in range(len(shown)):
            for j in range(i + 1, len(shown)):
                a, b = shown[i]["component_name"], shown[j]["component_name"]
                for name in (a, b):
                    won.setdefault(name, [0, 0, 0])
                if ranks[i] == ranks[j]:
                    won[a][2] += 1
                    won[b][2] += 1
                else:
                    winner, loser = (a, b) if ranks[i] < ranks[j] else (b, a)
                    won[winner][0] += 1
                    won[loser][1] += 1
    return {name: (w, lo, t) for name, (w, lo, t) in won.items()}


@pytest.mark.parametrize(
    "query", ["source=env", "polarity=positive", "dimension=correctness", "has_correction=true"]
)
def test_a_filter_no_judgment_can_match_leaves_every_judgment_out(
    judged: dict[str, int], rev: Actor, query: str
) -> None:
    for kind in ("trl", "comparisons"):
        assert rev.exported(kind, query) == [], (kind, query)


def test_the_judges_and_components_filters_choose_judgments(
    judged: dict[str, int], rev: Actor
) -> None:
    assert rev.exported("comparisons", "annotator=bob") == []
    assert len(rev.exported("comparisons", "annotator=ann")) == 3
    chosen = sorted(
        (line["chosen"], line["rejected"]) for line in rev.exported("trl", "component=c")
    )
    assert chosen == [("c says", "a says"), ("c says", "b says")]


def test_trl_with_corrections_and_judgments_loads_in_datasets_with_its_margin(
    judged: dict[str, int],
    agent: Actor,
    rev: Actor,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    corrected = feedback(polarity="corrective", score=-0.5, correction="Seven.", rated_turn=turn())
    assert agent.learn(feedback_req(corrected)).status_code == 200
    path = tmp_path / "trl.jsonl"
    path.write_bytes(rev.exported_bytes("trl"))
    dataset = datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert dataset.num_rows == 5
    assert set(dataset.column_names) == {"prompt", "chosen", "rejected", "margin"}
    assert sorted(m for m in dataset["margin"] if m is not None) == [1, 1, 1, 2]
