"""Commands that check the whole installation: `doctor` (versions, CPU/GPU, models, the network switches, a KB
file) and `demo` (the default models end to end on the bundled samples)."""

from __future__ import annotations

from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import llm_settings, settings_of
from pikelocal.cli.keys import key_file_option, key_for_run


@click.command()
@click.argument("kb", required=False, type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Re-hash model files.")
@click.option("--network", is_flag=True, help="Trace an encoder run with strace and count its internet calls (~15 s).")
@key_file_option
@click.pass_context
def doctor(ctx: click.Context, kb: Path | None, verify: bool, network: bool) -> None:
    """Check versions, CPU/GPU, models, the network switches, and (given KB) a knowledge-base file.

    An encrypted KB is opened with its key (--key-file, $PIKELOCAL_KEY, or asked); without it, its check fails.
    """
    key = key_for_run(ctx, kb, check=False)  # a missing or wrong key is one of the checks that fail
    sections = api.doctor(settings_of(ctx), kb, full=verify, key=key, network=network)
    for section in sections:
        click.echo(click.style(section.title, bold=True))
        for check in section.checks:
            mark = {True: click.style("ok  ", fg="green"), False: click.style("FAIL", fg="red"), None: "    "}
            click.echo(f"  {mark[check.ok]} {check.name:<24} {check.value}")
    if any(s.failed for s in sections):
        ctx.exit(1)


@click.command()
@click.argument("kb", default="demo.kb", type=click.Path(path_type=Path))
@click.pass_context
def demo(ctx: click.Context, kb: Path) -> None:
    """Run the default models end to end and write a small KB file (default ./demo.kb)."""
    api.demo(llm_settings(ctx), kb, click.echo)
