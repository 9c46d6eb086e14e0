"""Safe retries: the same id with the same content is stored once; other content is a conflict.

What identifies an item's content is what its sender chose, not what a library added: `ts` is
left out, since every client library (LearnPortal's own, the A2E SDK) stamps it when it makes
an item, so that a kept item resent as a fresh model carries a fresh stamp; and a field at its
default counts as left out, since one library spells defaults out and another omits them. The
stored item keeps the `ts` of its first send.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import orjson

from core.timing import staged
from feedback.bulk import existing_values
from learnportal_protocol.errors import conflict, detail

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from django.db import models
    from pydantic import BaseModel

NOT_CONTENT = frozenset({"ts"})  # stamped by a library when an item is made


def chosen(item: BaseModel) -> dict[str, Any]:
    """The fields of `item` that identify its content: not stamps, none at its default."""
    return item.model_dump(exclude_defaults=True, exclude=set(NOT_CONTENT))


def content_hash(item: BaseModel, owner: str, resolved: Mapping[str, Any] | None = None) -> str:
    """A digest of `item`'s content sent by `owner`; `resolved` replaces fields the host fills
    in (a feedback's source and annotator), so that naming them and leaving them out agree."""
    data = chosen(item)
    if resolved:
        data.update(resolved)
    data["__owner"] = owner
    return hashlib.blake2b(
        orjson.dumps(data, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).hexdigest()


@staged("`new_items`: SELECT of existing ids")
def new_items(
    model: type[models.Model],
    id_field: str,
    field_name: str,
    ids: Sequence[str],
    hashes: Sequence[str],
    *,
    project: int | None = None,
) -> list[int]:
    """Indexes of the items to store; raise `conflict` naming every reused id with new content.
    With `project`, ids are the project's own (`model` has one), as feedback ids are."""
    first_seen: dict[str, str] = {}
    problems = []
    candidates = []
    for index, (item_id, digest) in enumerate(zip(ids, hashes, strict=True)):
        if item_id not in first_seen:
            first_seen[item_id] = digest
            candidates.append(index)
        elif first_seen[item_id] != digest:
            problems.append(
                detail([field_name, index, id_field], "reused in this batch with other content")
            )
    stored = existing_values(model, id_field, "content_hash", first_seen, project=project)
    fresh = []
    for index in candidates:
        previous = stored.get(ids[index])
        if previous is None:
            fresh.append(index)
        elif previous != hashes[index]:
            problems.append(
                detail([field_name, index, id_field], "already stored with other content")
            )
    if problems:
        raise conflict(
            f"{len(problems)} {field_name} reuse an id with other content; nothing was stored.",
            problems,
        )
    return fresh
