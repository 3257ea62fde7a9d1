"""What every command module shares: the settings of this invocation and how to print to stderr or a file."""

from __future__ import annotations

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
        return effective_settings(ctx, extra).settings
    if "settings" not in obj:
        obj["settings"] = effective_settings(ctx).settings
    settings: api.Settings = obj["settings"]
    return settings


def effective_settings(ctx: click.Context, overrides: Mapping[str, Any] | None = None) -> api.Effective:
    """:func:`settings_of` with where each value came from (the global flags named as typed)."""
    obj: dict[str, Any] = ctx.ensure_object(dict)
    layered = {**(obj.get("overrides") or {}), **(overrides or {})}
    return api.resolve_settings(obj.get("config"), layered, flags=obj.get("flags"))


def llm_settings(ctx: click.Context, overrides: Mapping[str, Any] | None = None) -> api.Settings:
    """:func:`settings_of` for a command that sends text to the LLM: when that LLM is a server, its address is
    named once on stderr, so nobody sends documents somewhere without seeing where."""
    settings = settings_of(ctx, overrides)
    obj: dict[str, Any] = ctx.ensure_object(dict)
    if settings.llm.backend == "openai" and not obj.get("endpoint_named"):
        obj["endpoint_named"] = True
        err(f"LLM server: {settings.llm.base_url} (the text of the documents and questions is sent there)")
    return settings


def err(text: str, *, dim: bool = False) -> None:
    """A line on stderr (dimmed on a terminal)."""
    click.echo(click.style(text, dim=dim) if sys.stderr.isatty() else text, err=True)


def append_table(out: Path, table: str, notes: Sequence[str]) -> None:
    """Append a Markdown table and its notes (in italics) to ``out`` (an eval command's --out)."""
    with out.open("a", encoding="utf-8") as fh:
        fh.write(table + "\n" + "".join(f"\n_{n}_" for n in notes) + "\n\n")
