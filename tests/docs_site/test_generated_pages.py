"""The reference pages generated at build time say what the code holds: every management
command of the project with its usage, every operation of the OpenAPI document, every role's
permissions."""

from __future__ import annotations

from pathlib import Path

from docs_site import commands, openapi, roles
from tests.test_layers import layers

REPO = Path(__file__).resolve().parents[2]


def test_every_command_of_the_projects_apps_is_listed_with_its_usage() -> None:
    on_disk = {
        path.stem
        for package in layers()
        for path in (REPO / package).glob("**/management/commands/*.py")
        if not path.stem.startswith("_")
    }
    page = commands.markdown(commands.project_commands())
    assert on_disk and set(commands.project_commands()) == on_disk
    for name in on_disk:
        assert f"usage: manage.py {name} " in page
    assert "--skip-checks" not in page and "--verbosity" not in page  # said once, above


def test_every_operation_of_the_api_has_its_section() -> None:
    document = openapi.schema_document()
    page = openapi.markdown(document)
    operations = [
        f"### `{method.upper()} {path}`"
        for path, item in document["paths"].items()
        for method in openapi.METHODS
        if method in item
    ]
    assert len(operations) > 20
    assert [line for line in operations if line not in page] == []
    for name in document["components"]["schemas"]:
        assert f"{{#{openapi.anchor(name)}}}" in page


def test_a_reference_links_to_its_schema_and_a_cell_stays_one_cell() -> None:
    assert openapi.type_of({"$ref": "#/components/schemas/Routing"}) == (
        "[`Routing`](#schema-routing)"
    )
    assert openapi.type_of({"type": "array", "items": {"type": "string"}}) == "list of `string`"
    assert openapi.cell("a | b\n<c> `<d>`") == "a \\| b &lt;c&gt; `<d>`"


def test_the_roles_table_has_every_action_and_role() -> None:
    from core.accounts.roles import ALLOWED

    page = roles.markdown()
    header = "| action | agent | environment | annotator | reviewer | manager | admin |"
    assert page.splitlines()[0] == header
    assert len(page.splitlines()) == len(ALLOWED) + 2
    export = next(line for line in page.splitlines() if line.startswith("| export feedback |"))
    assert export.split(" | ")[1:] == ["", "", "", "✓", "✓", "✓ |"]
