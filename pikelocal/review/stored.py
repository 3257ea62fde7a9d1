"""Review results to and from the store: a :class:`ReviewRow` as JSON, and the rows of a checklist with the
reviewer's newest mark on each (``store.reviews`` keeps every mark; the newest one is the row's)."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from typing import Any

from pikelocal.domain.review import Checklist, Located, ReviewQuote, ReviewRow, Value
from pikelocal.store.reviews import StoredMark
from pikelocal.store.store import Store

_MARK_FIELDS = ("mark", "note", "marked_at")


def row_json(row: ReviewRow) -> str:
    """The stored form of ``row``: everything but the mark, which lives in ``review_marks``."""
    data = asdict(row)
    for key in _MARK_FIELDS:
        data.pop(key)
    return json.dumps(data, ensure_ascii=False)


def row_from_json(payload: str) -> ReviewRow:
    data: dict[str, Any] = json.loads(payload)
    return ReviewRow(
        **{
            **data,
            "values": tuple(_value(v) for v in data.get("values", ())),
            "quotes": tuple(_quote(q) for q in data.get("quotes", ())),
            "extra": dict(data.get("extra", {})),
        }
    )


def _value(v: dict[str, Any]) -> Value:
    return Value(**v)


def _quote(q: dict[str, Any]) -> ReviewQuote:
    value = q.get("value")
    return ReviewQuote(text=q["text"], where=Located(**q["where"]), value=_value(value) if value else None)


def stored_name(checklist: str, scope: str = "") -> str:
    """The name a checklist's rows are stored under: its own, or with a scope (``tender-zh@doc:1f3a…``: the rows of
    one document, answered from that document alone), so the runs of one checklist over the whole KB and over each
    document never overwrite one another's rows."""
    return f"{checklist}@{scope}" if scope else checklist


def document_scope(sha256: str) -> str:
    """The scope of the rows answered from one document alone: its content's hash, so a changed document is asked
    again and an unchanged one keeps its rows whatever its id."""
    return f"doc:{sha256[:16]}"


def stored_rows(store: Store, checklist: Checklist, scope: str = "") -> list[ReviewRow]:
    """The stored rows of ``checklist`` (in ``scope``: :func:`stored_name`) in its items' order (items never answered
    are left out), each with the reviewer's newest mark and note."""
    name = stored_name(checklist.name, scope)
    by_item = {r.item_id: row_from_json(r.json) for r in store.reviews.results(name)}
    newest: dict[str, StoredMark] = {m.item_id: m for m in store.reviews.marks(name)}
    rows = []
    for item in checklist.items:
        row = by_item.get(item.id)
        if row is None:
            continue
        mark = newest.get(item.id)
        rows.append(replace(row, mark=mark.mark, note=mark.note, marked_at=mark.at) if mark else row)  # type: ignore[arg-type]
    return rows
