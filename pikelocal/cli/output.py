"""`--json`, declared once (:func:`json_option`, after sqlite-utils' ``output_options``), and the records it prints.

The convention: with ``--json`` a command prints one JSON document on stdout and nothing else there. A command that
lists things prints an array with one object per record; a command about one thing prints that one object. A record
type has the same fields wherever it is printed (a trace from ``ask`` and from ``trace``; ``document`` is always
the document's stored path). Each :class:`Record` names the fields every one of its objects carries;
tests/cli/test_json_output.py runs every command with ``--json`` and checks them.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import click

from pikelocal import api

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Record:
    """One record type of the ``--json`` output: its name, its fields, and whether a command prints many."""

    name: str
    fields: tuple[str, ...]
    many: bool = True  # an array of them (a listing), or one object

    def describe(self) -> str:
        return f"an array of {self.name} objects" if self.many else f"one {self.name} object"


HIT = Record(
    "hit",
    ("rank", "score", "ranks", "chunk_id", "document", "title", "pages", "lines", "section", "snippet", "via",
     "marks", "cites"),
)  # fmt: skip
SEGMENT = Record(
    "segment",
    ("rank", "value", "document", "title", "pages", "lines", "section", "chunk_ids", "chunk_ords", "chunk_values",
     "chunk_ranks", "text"),
)  # fmt: skip
SUMMARY_NODE = Record(
    "summary node",
    ("rank", "score", "node_id", "kind", "level", "label", "document", "pages", "chunk_ids", "summary"),
)
CITATION = Record(
    "citation",
    ("document", "page", "text", "law", "article", "detail", "resolved", "target_document", "target_chunk",
     "target_page"),
)  # fmt: skip
TRACE = Record(
    "trace",
    ("id", "created_at", "question", "mode", "rounds", "answer", "calls", "first_token_s", "total_s", "model_id"),
    many=False,
)
HISTORY_ENTRY = Record("history entry", ("id", "question", "created_at", "mode", "answer", "total_s"))
LIBRARY = Record("library", ("documents", "failures"), many=False)
STATS = Record(
    "stats", ("path", "counts", "usage", "failures", "vectors", "refs", "layers", "seconds_per_chunk"), many=False
)
REVIEW_ROW = Record(
    "review row", ("checklist", "item_id", "label", "kind", "question", "answer", "verdict", "values", "quotes")
)
_VIEW_MARK = ("row_id", "mark", "note", "marked_at")
RISK = Record("risk", ("clause", "stage", "triggers", *_VIEW_MARK))
REQUIREMENT = Record("requirement", ("clause", "party", "kind", "modal", "figures", *_VIEW_MARK))
BID_CHECK = Record("bid check", ("requirement", "state", "answer", "figures", "similarity"))
TIMELINE_ENTRY = Record("timeline entry", ("clause", "date", "roc", "value", "what", *_VIEW_MARK))
MARKS_IMPORT = Record(
    "marks import", ("checklist", "views", "workbook", "read", "changed", "unchanged", "errors"), many=False
)
KEY_FIGURE = Record("key figure", ("value", "sentence", "where", "heading"))
SETTING = Record("setting", ("key", "value", "default", "source", "where", "env"))

_DECLARED: dict[object, tuple[Record, ...]] = {}


def json_option(*records: Record) -> Callable[[F], F]:
    """The ``--json`` flag (the command's ``as_json`` parameter), its help naming what is printed."""
    shapes = " or ".join(f"{r.describe()} ({', '.join(r.fields)})" for r in records)

    def decorate(f: F) -> F:
        _DECLARED[f] = records
        return click.option("--json", "as_json", is_flag=True, help=f"Print JSON instead: {shapes}.")(f)

    return decorate


def json_records(command: click.Command) -> tuple[Record, ...]:
    """The record types ``command`` prints with ``--json`` (none: it has no ``--json``)."""
    return _DECLARED.get(command.callback, ())


def echo_json(data: Any) -> None:
    """``data`` as indented JSON on stdout, non-ASCII text as itself but C1 controls and bidi marks escaped
    (a document's or file's name must not drive the terminal or reorder what is shown)."""
    click.echo(api.escape_hidden_json(json.dumps(data, ensure_ascii=False, indent=2)))


def echo_records(record: Record, rows: Sequence[Any] | Any) -> None:
    """Print ``rows`` (dataclasses or dicts; one when ``record`` is not ``many``) as ``record`` objects."""
    items = [_plain(r) for r in rows] if record.many else _plain(rows)
    echo_json(items)


def _plain(row: Any) -> Any:
    return dataclasses.asdict(row) if dataclasses.is_dataclass(row) and not isinstance(row, type) else row


def trace_record(trace: api.QueryTrace) -> dict[str, Any]:
    """A question's trace, as ``ask`` and ``trace`` print it."""
    return {"id": trace.id, "created_at": trace.created_at, **trace.to_dict()}
