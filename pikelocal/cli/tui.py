"""`pikelocal tui`: the terminal UI (the one command that starts the other front end)."""

from __future__ import annotations

from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import llm_settings
from pikelocal.cli.keys import key_file_option, open_kb


@click.command()
@click.argument("kb", required=False, type=click.Path(path_type=Path))
@key_file_option
@click.pass_context
def tui(ctx: click.Context, kb: Path | None) -> None:
    """Open the terminal UI on KB: ask, read cited pages, follow the reasoning, manage the library.

    Without KB, choose a knowledge base file or name a new one. F1 shows the keys. An encrypted KB's key is
    asked for before the UI starts (unless --key-file or $PIKELOCAL_KEY gives it).
    """
    settings = llm_settings(ctx)
    if kb is not None:
        kb = kb.expanduser().resolve()
        open_kb(ctx, kb, settings).close()  # the key, asked here when needed, is remembered for the TUI's opens
        if (problem := api.kb_problem(kb)) is not None:
            raise api.InputError(problem)
    from pikelocal.tui.app import run

    run(settings, kb)
