"""README.md lists every command of the CLI with the first line of its help, so the two cannot drift apart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click

from pikelocal.cli import cli

README = Path(__file__).resolve().parents[2] / "README.md"


def commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, str]]:
    """(command path, first line of its help) for every command, sub-groups included."""
    for name in sorted(group.commands):
        command = group.commands[name]
        if isinstance(command, click.Group):
            yield from commands(command, (*prefix, name))
        else:
            yield " ".join((*prefix, name)), (command.help or "").strip().splitlines()[0]


def reference_rows() -> list[str]:
    return [f"| `pikelocal {path}` | {summary} |" for path, summary in commands(cli)]


def test_every_command_is_in_the_readme_with_its_help_text() -> None:
    readme = README.read_text(encoding="utf-8")
    missing = [row for row in reference_rows() if row not in readme]
    assert not missing, "README.md's command reference lacks (or words differently):\n" + "\n".join(missing)


def test_the_readme_lists_no_command_the_cli_lacks() -> None:
    known = {f"`pikelocal {path}`" for path, _ in commands(cli)}
    listed = [line.split("|")[1].strip() for line in README.read_text(encoding="utf-8").splitlines()
              if line.startswith("| `pikelocal ")]  # fmt: skip
    assert listed and set(listed) <= known, sorted(set(listed) - known)
