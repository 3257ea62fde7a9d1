"""Encryption keys on the command line: `--key-file`, `PIKELOCAL_KEY` or a prompt; `encrypt`, `rekey`, `decrypt`.

The key of a KB comes, in order, from ``--key-file FILE`` (its first line; the file must be private), the
``PIKELOCAL_KEY`` environment variable, or a hidden prompt when the KB is encrypted and stdin is a terminal. It is
never printed, logged, stored or put in a trace; losing it loses the KB.
"""

from __future__ import annotations

import getpass
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from pikelocal import api
from pikelocal.cli.common import settings_of

ENV_KEY = "PIKELOCAL_KEY"  # read by the store too; here only to know whether to prompt
F = TypeVar("F", bound=Callable[..., Any])


def _remember_key_file(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    if value is not None:
        ctx.ensure_object(dict)["key_file"] = value


def key_file_option(func: F) -> F:
    """``--key-file FILE`` on a command (the same as the global option, given after the command's name)."""
    return click.option(
        "--key-file",
        type=click.Path(path_type=Path, dir_okay=False),
        expose_value=False,
        is_eager=True,
        callback=_remember_key_file,
        help="File whose first line is the key of an encrypted KB (mode 600). Else $PIKELOCAL_KEY, else asked.",
    )(func)


def read_key_file(path: Path) -> str:
    """The first line of ``path``, stripped; a file other users may read is refused."""
    try:
        mode = path.stat().st_mode
        with path.open(encoding="utf-8") as fh:
            key = fh.readline().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise api.InputError(f"{path}: cannot read the key file: {getattr(exc, 'strerror', None) or exc}") from None
    if mode & 0o077:
        raise api.InputError(
            f"{path}: the key file is open to other users (mode {stat.S_IMODE(mode):o}); run `chmod 600 {path}`"
        )
    if not key:
        raise api.InputError(f"{path}: the key file is empty (the key is its first line)")
    return key


def given_key(ctx: click.Context, name: str = "key_file") -> str | None:
    """The key from ``--key-file`` (or ``--new-key-file`` with ``name="new_key_file"``), or None."""
    path = ctx.ensure_object(dict).get(name)
    return read_key_file(path) if path is not None else None


def _interactive() -> bool:
    return sys.stdin.isatty()


def ask_key(kb: Path) -> str | None:
    """The key typed (hidden) at the terminal, or None without a terminal."""
    if not _interactive():
        return None
    return getpass.getpass(f"Key for {kb.name}: ") or None


def ask_new_key(kb: Path, what: str, ways: str = "give --key-file, set PIKELOCAL_KEY") -> str:
    """A new key typed twice at the terminal; without a terminal, a one-line error naming the other ``ways``."""
    if not _interactive():
        raise api.InputError(f"{kb}: {what} needs a key: {ways}, or run it on a terminal to type one")
    first = getpass.getpass(f"New key for {kb.name}: ")
    if not first:
        raise api.InputError("the key is empty")
    if getpass.getpass("The same key again: ") != first:
        raise api.InputError("the two keys differ; nothing was changed")
    return first


def open_kb(ctx: click.Context, kb: Path, settings: api.Settings, *, encrypt: bool | None = None) -> api.KnowledgeBase:
    """:func:`api.open_kb` with the key of this invocation: ``--key-file``, else ``$PIKELOCAL_KEY`` (the store reads
    it), else asked when the KB is encrypted and stdin is a terminal.

    ``encrypt`` is ingest's ``--encrypt`` (None for the other commands): True creates a new KB encrypted (a key is
    then required; a plain KB is refused with the way to encrypt it), False refuses a key for a new KB, so that a
    KB meant to be encrypted is never created plain by a forgotten flag.
    """
    key = given_key(ctx)
    knowledge_base = api.open_kb(kb, settings, key=key)
    kind = knowledge_base.encryption()
    has_key = key is not None or bool(os.environ.get(ENV_KEY))
    if encrypt and kind == "plain":
        raise api.InputError(f"{kb}: not encrypted, and --encrypt only makes new KBs; run `pikelocal encrypt {kb}`")
    if kind == "new" and encrypt is not None:
        if encrypt and not has_key:
            knowledge_base.unlock(ask_new_key(kb, "--encrypt"))
        elif not encrypt and has_key:
            raise api.InputError(f"{kb}: a key was given for a new KB; add --encrypt to create it encrypted")
    if kind == "encrypted" and not has_key and (typed := ask_key(kb)) is not None:
        knowledge_base.unlock(typed)  # a wrong key fails here, in one line
    return knowledge_base


def key_for_run(ctx: click.Context, kb: Path | None, *, check: bool = True) -> str | None:
    """The key for a command that hands KB's path to a longer run (`doctor`, `eval`) rather than open it here:
    ``--key-file``, else typed at a terminal when KB is encrypted and ``$PIKELOCAL_KEY`` is unset, else None (the
    store then reads ``$PIKELOCAL_KEY``).

    With ``check``, an existing KB is opened with it now, so that a missing or wrong key, or a key for a plain KB,
    fails in one line before any model is loaded or data read (`doctor` reports it as a failed check instead).
    """
    key = given_key(ctx)
    if kb is None or not kb.is_file() or kb.stat().st_size == 0:
        return key  # no KB yet: built (encrypted when there is a key) by the run
    encrypted = api.kb_is_encrypted(kb)
    if encrypted and key is None and not os.environ.get(ENV_KEY):
        key = ask_key(kb)
    if check:
        if key is not None:
            api.unlock_kb(kb, key)  # a wrong key, or a plain KB given a key: one line, now
        elif encrypted and (problem := api.kb_problem(kb)) is not None:
            raise api.InputError(problem)
    return key


@click.command()
@click.argument("kb", type=click.Path(path_type=Path, dir_okay=False))
@key_file_option
@click.pass_context
def encrypt(ctx: click.Context, kb: Path) -> None:
    """Encrypt the plain knowledge base KB in place with a key (--key-file, $PIKELOCAL_KEY, or typed twice).

    Crash-safe: the encrypted copy replaces KB only once it is complete. Refused while KB is in use. The key is
    not stored anywhere: without it the KB cannot be opened again.
    """
    key = given_key(ctx) or os.environ.get(ENV_KEY) or ask_new_key(kb, "encrypt")
    api.open_kb(kb, settings_of(ctx)).encrypt(key)
    click.echo(f"Encrypted {kb}. Keep the key safe: without it the knowledge base cannot be opened.")


@click.command()
@click.argument("kb", type=click.Path(path_type=Path, dir_okay=False))
@key_file_option
@click.option(
    "--new-key-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File whose first line is the new key (mode 600). Else typed twice.",
)
@click.pass_context
def rekey(ctx: click.Context, kb: Path, new_key_file: Path | None) -> None:
    """Change the key of the encrypted knowledge base KB (its key: --key-file, $PIKELOCAL_KEY, or asked).

    Crash-safe, like `encrypt`; afterwards the old key no longer opens KB.
    """
    knowledge_base = open_kb(ctx, kb, settings_of(ctx))
    if knowledge_base.encryption() != "encrypted":
        raise api.InputError(f"{kb}: not encrypted (encrypt it with `pikelocal encrypt {kb}`)")
    if (problem := api.kb_problem(kb)) is not None:  # the current key opens it, before a new one is asked for
        raise api.InputError(problem)
    if new_key_file is not None:
        new_key = read_key_file(new_key_file)
    else:
        new_key = ask_new_key(kb, "rekey", "give --new-key-file")
    knowledge_base.rekey(new_key)
    click.echo(f"Re-keyed {kb}: the old key no longer opens it.")


@click.command()
@click.argument("kb", type=click.Path(path_type=Path, dir_okay=False))
@key_file_option
@click.pass_context
def decrypt(ctx: click.Context, kb: Path) -> None:
    """Make the encrypted knowledge base KB plain again (its key: --key-file, $PIKELOCAL_KEY, or asked).

    Crash-safe, like `encrypt`; refused while KB is in use. Afterwards KB opens without a key, and anyone who can
    read the file can read its documents, questions and answers.
    """
    open_kb(ctx, kb, settings_of(ctx)).decrypt()
    click.echo(f"Decrypted {kb}: it is a plain SQLite file again and opens without a key.")
