"""What every command module shares: the settings of this invocation and how to print to stderr or a file."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import click

from pikelocal import api


def settings_of(ctx: click.Context, overrides: Mapping[str, Any] | None = None) -> api.Settings:
    """The settings of this invocation (file < environment < global flags), with a command's ``overrides`` (e.g.
    ``{"ingest.splitter": "llm"}``) on top."""
    obj: dict[str, Any] = ctx.ensure_object(dict)
    extra = {k: v for k, v in (overrides or {}).items() if v is not None}
    if extra:
        return api.load_settings(obj.get("config"), {**(obj.get("overrides") or {}), **extra})
    if "settings" not in obj:
        obj["settings"] = api.load_settings(obj.get("config"), obj.get("overrides"))
    settings: api.Settings = obj["settings"]
    return settings


def llm_settings(ctx: click.Context, overrides: Mapping[str, Any] | None = None) -> api.Settings:
    """:func:`settings_of` for a command that sends text to the LLM: when that LLM is a server, its address is
    named once on stderr, so nobody sends documents somewhere without seeing where."""
    settings = settings_of(ctx, overrides)
    obj: dict[str, Any] = ctx.ensure_object(dict)
    if settings.llm.backend == "openai" and not obj.get("endpoint_named"):
        obj["endpoint_named"] = True
        err(f"LLM server: {settings.llm.base_url} (the text of the documents and questions is sent there)")
    return settings


def echo_json(data: Any) -> None:
    """``data`` as indented JSON on stdout, non-ASCII text as itself but C1 controls and bidi marks escaped
    (a document's or file's name must not drive the terminal or reorder what is shown)."""
    click.echo(api.escape_hidden_json(json.dumps(data, ensure_ascii=False, indent=2)))


def err(text: str, *, dim: bool = False) -> None:
    """A line on stderr (dimmed on a terminal)."""
    click.echo(click.style(text, dim=dim) if sys.stderr.isatty() else text, err=True)


def append_table(out: Path, table: str, notes: Sequence[str]) -> None:
    """Append a Markdown table and its notes (in italics) to ``out`` (an eval command's --out)."""
    with out.open("a", encoding="utf-8") as fh:
        fh.write(table + "\n" + "".join(f"\n_{n}_" for n in notes) + "\n\n")
