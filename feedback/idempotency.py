"""Safe retries: the same id with the same content is stored once; other content is a conflict."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import orjson

from feedback.bulk import existing_values
from learnportal.protocol.errors import conflict, detail

if TYPE_CHECKING:
    from collections.abc import Sequence

    from django.db import models
    from pydantic import BaseModel


def content_hash(item: BaseModel, owner: str, sent: dict[str, Any] | None = None) -> str:
    """A digest of what the client sent, so that a retry without `ts` still matches.

    `sent` is the item's JSON as it came over the wire, when it did: hashing it costs a
    fraction of dumping the model again.
    """
    if sent is not None:
        data = dict(sent)
    else:
        data = item.model_dump(mode="json")
        if "ts" not in item.model_fields_set:
            data.pop("ts", None)
    data["__owner"] = owner
    return hashlib.blake2b(
        orjson.dumps(data, option=orjson.OPT_SORT_KEYS), digest_size=16
    ).hexdigest()


def new_items(
    model: type[models.Model],
    id_field: str,
    field_name: str,
    ids: Sequence[str],
    hashes: Sequence[str],
) -> list[int]:
    """Indexes of the items to store; raise `conflict` naming every reused id with new content."""
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
    stored = existing_values(model, id_field, "content_hash", first_seen)
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
