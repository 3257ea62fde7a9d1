"""`pikelocal review KB --checklist NAME --per-document [DOC ...]`: the checklist run once per document and printed
side by side (a row per item, a column per document, whether they agree), then every cell's quote and citation;
or exported, or as JSON."""

from __future__ import annotations

import dataclasses
import shutil
import unicodedata
from pathlib import Path
from typing import Any

import click

from pikelocal import api
from pikelocal.cli.common import llm_settings, settings_of
from pikelocal.cli.keys import open_kb
from pikelocal.cli.output import Record, echo_records
from pikelocal.cli.progress import ProgressPrinter

SIDE_BY_SIDE = Record("side by side", ("checklist", "documents", "rows", "asked", "kept"), many=False)
ITEM_WIDTH = 22  # display cells of the item column
MIN_CELL, MAX_CELL = 12, 30  # display cells of a document's column
MARK_WIDTH = 8  # "DIFFERS" and a space


def run_side_by_side(
    ctx: click.Context,
    kb: Path,
    checklist: str,
    docs: tuple[str, ...],
    script: str | None,
    fresh: bool,
    export_to: Path | None,
    as_json: bool,
) -> None:
    """Run the checklist per document and print the table; with ``export_to``, write the table of the rows stored
    so far instead (no model is loaded, as for a checklist's export)."""
    request = api.SideBySideRequest(checklist, docs, script, fresh)  # type: ignore[arg-type]  # click.Choice
    if export_to is not None:
        with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
            stored = knowledge_base.side_by_side_table(request)
            if all(c is None for row in stored.rows for c in row.cells):
                raise api.InputError(
                    f"{api.shown_name(kb.name)}: checklist {stored.checklist.name} has no item answered per document"
                    " yet (run `pikelocal review KB --checklist NAME --per-document`)"
                )
            written = knowledge_base.export_side_by_side(stored, export_to)
        click.echo(api.shown_name(f"Wrote {written}"))
        return
    with open_kb(ctx, kb, llm_settings(ctx)) as knowledge_base:
        compared = knowledge_base.side_by_side(request, ProgressPrinter())
    if as_json:
        echo_records(SIDE_BY_SIDE, json_record(compared))
        return
    print_table(compared)


def json_record(compared: api.SideBySide) -> dict[str, Any]:
    """The table as one JSON object: the checklist's name, the columns, and each row with its cells (null: the
    item was not answered on that document)."""
    return {
        "checklist": compared.checklist.name,
        "documents": [dataclasses.asdict(d) for d in compared.documents],
        "rows": [
            {
                "item_id": r.item_id, "label": r.label, "section": r.section, "kind": r.kind,
                "agreement": r.agreement, "cells": [None if c is None else dataclasses.asdict(c) for c in r.cells],
            }
            for r in compared.rows
        ],
        "asked": compared.asked,
        "kept": compared.kept,
    }  # fmt: skip


def cell_len(text: str) -> int:
    """Display cells of ``text`` in a terminal: two for a wide (CJK) or full-width character, else one."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def fit(text: str, width: int) -> str:
    """``text`` on one line in ``width`` display cells (a CJK character takes two), cut with … and padded."""
    flat = " ".join(api.printable(text).split())
    if cell_len(flat) > width:
        while flat and cell_len(flat) > width - 1:
            flat = flat[:-1]
        flat += "…"
    return flat + " " * (width - cell_len(flat))


def cell_text(cell: api.ReviewRow | None) -> str:
    """A cell in the grid: the value for a found row, else its state (to check shows its value after a ?)."""
    if cell is None:
        return "(not asked)"
    value = " / ".join(dict.fromkeys(v.normal for v in cell.values)) or cell.answer
    if cell.verdict == "found":
        return value
    if cell.verdict == "to_check":
        return f"? {value}"
    if cell.verdict == "conflicting":
        return f"CONFLICT {value}"
    return "not stated"


def print_table(compared: api.SideBySide) -> None:
    n = len(compared.documents)
    room = shutil.get_terminal_size((120, 40)).columns - ITEM_WIDTH - MARK_WIDTH - 3 * (n + 1)
    width = max(MIN_CELL, min(MAX_CELL, room // max(n, 1)))
    letters = [chr(ord("A") + i) if i < 26 else str(i + 1) for i in range(n)]
    for letter, d in zip(letters, compared.documents, strict=True):
        click.echo(api.printable(f"{letter}: {d.heading}  ({api.shown_name(d.path)})"))
    head = [
        fit("item", ITEM_WIDTH),
        *(fit(f"{x} {d.heading}", width) for x, d in zip(letters, compared.documents, strict=True)),
    ]
    click.echo("\n" + " | ".join([*head, "documents"]))
    click.echo("-+-".join("-" * w for w in [ITEM_WIDTH, *[width] * n, MARK_WIDTH]))
    for row in compared.rows:
        cells = [fit(row.label, ITEM_WIDTH), *(fit(cell_text(c), width) for c in row.cells)]
        click.echo(" | ".join([*cells, api.AGREEMENT_NAMES[row.agreement]]))
    click.echo("\nQuotes:")
    for row in compared.rows:
        quoted = [(x, c) for x, c in zip(letters, row.cells, strict=True) if c is not None and c.quotes]
        if not quoted:
            continue
        click.echo(
            api.printable(f"  {row.label}" + (f"  [{api.AGREEMENT_NAMES[row.agreement]}]" if row.agreement else ""))
        )
        for letter, cell in quoted:
            for q in cell.quotes:
                click.echo(api.printable(f"    {letter}: “{' '.join(q.text.split())}” — {q.where.citation()}"))
    same = sum(r.agreement == "same" for r in compared.rows)
    differ = sum(r.agreement == "differs" for r in compared.rows)
    click.echo(
        f"\n{compared.checklist.name}: {len(compared.rows)} items on {n} documents, {same} same, {differ} differ;"
        f" {compared.asked} asked now in {compared.seconds:.0f} s, {compared.kept} kept."
    )
