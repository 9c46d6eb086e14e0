"""Turns from a file (feedback.turn_import, `manage.py import_turns`): JSON lines, CSV and a saved
Hugging Face dataset become the turns POST /api/turns/ would queue, through its validation and
its service; refused rows are named by row and field; a file's limits refuse it whole."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest
from django.core.management import CommandError, call_command

from core.accounts.models import User
from core.accounts.principals import principal_for_user
from feedback.models import Turn
from feedback.turn_files import FileFormat, read_rows
from feedback.turn_import import ColumnMapping, RefusedRow, turns_import
from learnportal_protocol.errors import LearnError
from tests.factories import UserFactory

if TYPE_CHECKING:
    from tests.harness import Actor

pytestmark = pytest.mark.django_db

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


def stored() -> dict[str, tuple[str, str, str, str, str, Any]]:
    return {
        t.correlation_id: (
            t.prompt,
            t.response,
            t.model,
            t.component_name,
            t.session_id,
            t.environment_value(),
        )
        for t in Turn.objects.all()
    }


def principal_of(actor: Actor) -> Any:
    return principal_for_user(User.objects.get(username=actor.name))


def test_the_example_files_queue_the_turns_they_hold_and_report_their_bad_row(
    db: None, capsys: pytest.CaptureFixture[str]
) -> None:
    call_command("import_turns", str(EXAMPLES / "turns.jsonl"), "--metadata", "meta.source")
    out, err = capsys.readouterr()
    assert out.strip() == "3 turns queued, 0 already queued, 1 rows refused, of 4."
    assert "row 4: response (column 'data.response'): Input should be a valid string" in err
    assert stored()["ls-101"] == (
        "What is the capital of Australia?",
        "The capital of Australia is Sydney.",
        "geo-1",
        "",
        "s-1",
        {"meta.source": "label-studio"},
    )
    call_command("import_turns", str(EXAMPLES / "turns.csv"), "--metadata", "team")
    out, err = capsys.readouterr()
    assert out.strip() == "3 turns queued, 0 already queued, 1 rows refused, of 4."
    assert "row 4: response (column 'answer'): no response: the column is empty" in err
    assert stored()["arg-3"][1:5] == (
        "Soft rain on the roof,\na quiet drum of evening,\nthe street holds the sky.",
        "poet-1",
        "poet",
        "s-2",
    )


def test_an_imported_turn_is_the_turn_post_api_turns_stores(agent: Actor, tmp_path: Path) -> None:
    turn = {"prompt": "2+2?", "response": "4", "model": "m-1", "environment": {"lang": "en"}}
    sent = {
        "correlation_id": "c-1",
        "session_id": "s",
        "component_name": "calc",
        "rated_turn": turn,
    }
    assert agent.rest("post", "/api/turns/", {"turns": [sent]}).status_code == 201
    by_api = stored()["c-1"]
    Turn.objects.all().delete()
    row = {"id": "c-1", "prompt": "2+2?", "response": "4", "model": "m-1", "component": "calc"}
    path = write_jsonl(tmp_path / "t.jsonl", [{**row, "session": "s", "lang": "en"}])
    call_command("import_turns", str(path), "--metadata", "lang")
    assert stored()["c-1"] == by_api


def test_a_refusal_reads_as_the_apis_for_the_same_value(agent: Actor, tmp_path: Path) -> None:
    bad = {"prompt": "2+2?", "response": "4", "model": "x" * 201}
    answer = agent.rest(
        "post", "/api/turns/", {"turns": [{"correlation_id": "c", "rated_turn": bad}]}
    ).json()
    (api_detail,) = answer["details"]
    assert api_detail["loc"] == ["turns", 0, "rated_turn", "model"]
    report = turns_import(
        principal=principal_of_name("boss"),
        rows=read_rows(write_jsonl(tmp_path / "t.jsonl", [bad]), FileFormat.JSONL),
        mapping=ColumnMapping(prompt="prompt", response="response", model="model"),
    )
    assert report.refused == [RefusedRow(1, "model", "model", api_detail["msg"])]
    assert not Turn.objects.exists()


def principal_of_name(name: str) -> Any:
    return principal_for_user(UserFactory.create(username=name, role="admin"))


def test_refused_rows_name_their_row_and_field_and_the_others_are_stored(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b'{"prompt": "a", "response": "b"}\n'
        b"not json\n"
        b"[1, 2]\n"
        b'{"prompt": "c"}\n'
        b'{"prompt": "d", "response": "e", "session": "s\\u0000"}\n'
        b"\n"
        b'{"prompt": "f", "response": "g"}\n'
    )
    report = turns_import(
        principal=principal_of_name("boss"),
        rows=read_rows(path, FileFormat.JSONL),
        mapping=ColumnMapping(prompt="prompt", response="response", session="session"),
    )
    assert [(r.row, r.field, r.column) for r in report.refused] == [
        (2, "row", ""),
        (3, "row", ""),
        (4, "response", "response"),
        (5, "session", "session"),
    ]
    assert report.refused[1].message == "not a JSON object"
    assert (report.rows, report.created, report.duplicates) == (6, 2, 0)
    assert sorted(p for p, *_ in stored().values()) == ["a", "f"]


def test_a_file_imported_again_is_stored_once_even_without_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = [{"prompt": f"p{i}", "response": "r"} for i in range(5)] + [
        {"prompt": "p0", "response": "r"}
    ]
    path = write_jsonl(tmp_path / "t.jsonl", rows)
    call_command("import_turns", str(path))
    call_command("import_turns", str(path))
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "5 turns queued, 1 already queued, 0 rows refused, of 6.",
        "0 turns queued, 6 already queued, 0 rows refused, of 6.",
    ]
    assert Turn.objects.count() == 5


def test_rows_go_in_batches_of_the_apis_limit(
    tmp_path: Path, settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 2
    path = write_jsonl(
        tmp_path / "t.jsonl", [{"prompt": f"{i}", "response": "r"} for i in range(5)]
    )
    call_command("import_turns", str(path))
    progress = [line for line in capsys.readouterr().err.splitlines() if "rows read" in line]
    assert progress == ["2/5 rows read", "4/5 rows read", "5/5 rows read"]
    assert Turn.objects.count() == 5


def test_a_file_over_a_limit_is_refused_whole_naming_the_setting(
    tmp_path: Path, settings: Any
) -> None:
    path = write_jsonl(
        tmp_path / "t.jsonl", [{"prompt": f"{i}", "response": "r"} for i in range(4)]
    )
    settings.LEARNPORTAL_IMPORT_MAX_ROWS = 3
    with pytest.raises(CommandError, match=r"LEARNPORTAL_IMPORT_MAX_ROWS.*\(file\)"):
        call_command("import_turns", str(path))
    settings.LEARNPORTAL_IMPORT_MAX_ROWS = 10
    settings.LEARNPORTAL_IMPORT_MAX_BYTES = 50
    with pytest.raises(CommandError, match="LEARNPORTAL_IMPORT_MAX_BYTES"):
        call_command("import_turns", str(path))
    assert not Turn.objects.exists()


def test_a_mapping_names_each_target_it_cannot_fill(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"text": "a", "label": "b"}])
    with pytest.raises(CommandError) as refused:
        call_command("import_turns", str(path), "--model", "nope")
    message = str(refused.value)
    for place in ("mapping.prompt", "mapping.response", "mapping.model"):
        assert place in message
    call_command("import_turns", str(path), "--prompt", "text", "--response", "label")
    assert Turn.objects.get().prompt == "a"


def test_a_file_of_another_kind_or_encoding_is_invalid_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"neither \.jsonl nor \.csv"):
        call_command("import_turns", str(write_jsonl(tmp_path / "t.txt", [{}])))
    latin = tmp_path / "t.csv"
    latin.write_bytes("prompt,response\ncaf\xe9,ok\n".encode("latin-1"))
    with pytest.raises(CommandError, match=r"not UTF-8 .*\(file\)"):
        call_command("import_turns", str(latin))


def test_a_folder_that_is_no_saved_dataset_is_invalid_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(CommandError, match=r"not a dataset saved with save_to_disk.*\(file\)"):
        call_command("import_turns", str(tmp_path / "empty"))


def test_only_reviewers_and_admins_import(ann: Actor, rev: Actor, tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "t.jsonl", [{"prompt": "a", "response": "b"}])
    mapping = ColumnMapping(prompt="prompt", response="response")
    with pytest.raises(LearnError, match="annotator role may not import turns"):
        turns_import(
            principal=principal_of(ann), rows=read_rows(path, FileFormat.JSONL), mapping=mapping
        )
    report = turns_import(
        principal=principal_of(rev), rows=read_rows(path, FileFormat.JSONL), mapping=mapping
    )
    assert report.created == 1
    assert Turn.objects.get().submitted_by == "user:rev"


def test_a_saved_hugging_face_dataset_is_read_with_load_from_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    rows = {
        "id": [7, 8],
        "instruction": ["Name a colour.", "Name a fruit."],
        "output": ["Blue.", "Pear."],
        "metadata": [{"split": "a"}, {"split": "b"}],
    }
    datasets.DatasetDict({"train": datasets.Dataset.from_dict(rows)}).save_to_disk(
        str(tmp_path / "ds")
    )
    call_command("import_turns", str(tmp_path / "ds"), "--metadata", "metadata.split")
    assert (
        capsys.readouterr().out.strip() == "2 turns queued, 0 already queued, 0 rows refused, of 2."
    )
    assert stored()["8"] == ("Name a fruit.", "Pear.", "", "", "", {"metadata.split": "b"})
