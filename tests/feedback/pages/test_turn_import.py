"""The import page (/turns/import/): upload, preview, map the columns, import all at once or one
batch a request (the progress bar's), and the report of refused rows; for reviewers and admins."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from feedback.models import Turn

if TYPE_CHECKING:
    from django.test import Client

pytestmark = pytest.mark.django_db

CSV = (
    b"id,question,answer,model,team\n"
    b"t-1,What is 2+2?,4,calc-1,maths\n"
    b"t-2,Capital of Peru?,,geo-1,geo\n"
    b"t-3,Name a colour,Blue,art-1,art\n"
)


@pytest.fixture(autouse=True)
def _own_var_dir(settings: Any, tmp_path: Any) -> None:
    settings.VAR_DIR = tmp_path


def upload(client: Client, name: str, body: bytes) -> Any:
    return client.post("/turns/import/", {"file": SimpleUploadedFile(name, body)})


def staged_url(client: Client, name: str = "turns.csv", body: bytes = CSV) -> str:
    response = upload(client, name, body)
    assert response.status_code == 302, response.content
    return str(response["Location"])


def selected(html: str, name: str) -> str:
    select = re.search(rf'<select name="{name}".*?</select>', html, re.S)
    assert select is not None, name
    chosen = re.search(r'<option value="([^"]*)" selected>', select.group(0))
    return chosen.group(1) if chosen else ""


MAPPING = {"prompt": "question", "response": "answer", "model": "model", "correlation_id": "id"}


def test_a_reviewer_previews_maps_imports_and_reads_the_refused_rows(reviewer: Client) -> None:
    url = staged_url(reviewer)
    html = reviewer.get(url).content.decode()
    assert "3 rows, 5 columns" in html
    assert "Capital of Peru?" in html  # the preview
    assert [selected(html, t) for t in ("prompt", "response", "model", "correlation_id")] == [
        "question",
        "answer",
        "model",
        "id",
    ]
    response = reviewer.post(url, {**MAPPING, "metadata": ["team"]})
    assert (response.status_code, response["Location"]) == (302, url)
    report = reviewer.get(url).content.decode()
    assert re.search(r'class="created">2<', report) and re.search(
        r'class="refused-count">1<', report
    )
    row = re.search(r'<tr class="refused">(.*?)</tr>', report, re.S)
    assert row is not None
    assert re.findall(r"<td[^>]*>(.*?)</td>", row.group(1)) == [
        "2",
        "response",
        "answer",
        "no response: the column is empty in this row",
    ]
    assert Turn.objects.get(correlation_id="t-3").environment_value() == {"team": "art"}
    # Posting again (a reload) imports nothing twice.
    reviewer.post(url, MAPPING)
    assert Turn.objects.filter(correlation_id__startswith="t-").count() == 2


def test_the_progress_bar_posts_one_batch_a_request(reviewer: Client, settings: Any) -> None:
    settings.LEARNPORTAL_MAX_BATCH = 2
    url = staged_url(reviewer)
    first = reviewer.post(url, {**MAPPING, "step": "1"}).content.decode()
    assert 'data-done="2" data-total="3" data-finished="0"' in first
    assert '<progress id="import-bar" max="3" value="2">' in first
    assert Turn.objects.filter(correlation_id__startswith="t-").count() == 1
    last = reviewer.post(url, {**MAPPING, "step": "1"}).content.decode()
    assert 'data-done="3" data-total="3" data-finished="1"' in last
    assert Turn.objects.filter(correlation_id__startswith="t-").count() == 2


def test_a_mapping_without_a_prompt_says_which_field_to_choose(reviewer: Client) -> None:
    url = staged_url(reviewer)
    response = reviewer.post(url, {**MAPPING, "prompt": ""})
    assert response.status_code == 400
    assert (
        '<p class="error field-error" data-field="prompt">choose the column that holds the prompt'
        in response.content.decode()
    )
    assert not Turn.objects.filter(correlation_id__startswith="t-").exists()


@pytest.mark.parametrize(
    ("name", "body", "status", "says"),
    [
        ("turns.txt", CSV, 400, "a .jsonl (JSON lines) or .csv (with a header row) file"),
        ("turns.csv", "prompt,response\ncafé,ok\n".encode("latin-1"), 400, "not UTF-8 text"),
        ("turns.jsonl", b'{"prompt": "a", "response": "b"}\n' * 4, 413, "at most 3 rows"),
    ],
)
def test_a_refused_file_is_shown_next_to_the_file_field_and_not_kept(
    reviewer: Client, settings: Any, name: str, body: bytes, status: int, says: str
) -> None:
    settings.LEARNPORTAL_IMPORT_MAX_ROWS = 3
    response = upload(reviewer, name, body)
    assert response.status_code == status
    assert f'data-field="file">{says}' in response.content.decode()
    assert list((settings.VAR_DIR / "imports").iterdir()) == []


def test_a_post_without_a_file_says_what_to_choose(reviewer: Client) -> None:
    response = reviewer.post("/turns/import/", {})
    assert response.status_code == 400
    assert 'data-field="file">Choose a .jsonl or .csv file of turns to upload.' in (
        response.content.decode()
    )


def test_an_upload_is_its_uploaders_alone(reviewer: Client, second_reviewer: Client) -> None:
    url = staged_url(reviewer)
    assert second_reviewer.get(url).status_code == 404
    assert second_reviewer.post(url, MAPPING).status_code == 404
    assert reviewer.get("/turns/import/" + "0" * 32 + "/").status_code == 404


def test_annotators_get_the_403_page_and_no_link(annotator: Client, reviewer: Client) -> None:
    assert annotator.get("/turns/import/").status_code == 403
    assert 'href="/turns/import/"' not in annotator.get("/").content.decode()
    assert 'href="/turns/import/"' in reviewer.get("/").content.decode()
