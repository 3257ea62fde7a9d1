"""Trust boundaries: where settings come from, which LLM servers may receive text, who may read a KB
file, and what document text may do to a terminal."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

import pytest

from pikelocal.config import load_settings
from pikelocal.domain.errors import ConfigError
from pikelocal.domain.shown import shown_name
from pikelocal.store.store import Store
from pikelocal.trace_text import printable
from tests.support.cli import run_cli
from tests.support.paths import installed_model

HOSTILE_TOML = '[llm]\nbackend = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'


def test_a_pikelocal_toml_in_the_current_folder_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pikelocal.toml").write_text(HOSTILE_TOML)
    with caplog.at_level(logging.WARNING, logger="pikelocal.config"):
        s = load_settings(environ={})
    assert s.llm.backend == "llama_cpp" and s.llm.base_url == ""
    assert "./pikelocal.toml is not read; pass --config pikelocal.toml to use it" in caplog.text
    assert load_settings(tmp_path / "pikelocal.toml", environ={}).llm.backend == "openai"  # named: used


def test_the_users_config_file_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "xdg" / "pikelocal"
    folder.mkdir(parents=True)
    (folder / "pikelocal.toml").write_text('[llm]\nmodel = "fast"\n')
    assert load_settings(environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}).llm.model == "fast"
    home = tmp_path / "home" / ".config" / "pikelocal"
    home.mkdir(parents=True)
    (home / "pikelocal.toml").write_text('[llm]\nmodel = "tiny"\n')
    assert load_settings(environ={"HOME": str(tmp_path / "home")}).llm.model == "tiny"


@pytest.mark.parametrize("url", ["http://10.0.0.7:8080/v1", "http://gpu-box:8080/v1", "https://api.example.com/v1"])
def test_a_server_off_this_machine_needs_an_explicit_opt_in(url: str) -> None:
    env = {"PIKELOCAL_LLM_BACKEND": "openai", "PIKELOCAL_LLM_BASE_URL": url}
    with pytest.raises(ConfigError, match="is not on this machine.*llm.allow_remote = true"):
        load_settings(environ=env)
    assert load_settings(environ={**env, "PIKELOCAL_LLM_ALLOW_REMOTE": "true"}).llm.base_url == url


def test_a_name_under_localhost_needs_the_opt_in_like_any_name() -> None:
    env = {"PIKELOCAL_LLM_BACKEND": "openai", "PIKELOCAL_LLM_BASE_URL": "http://gpu.localhost:8080/v1"}
    with pytest.raises(ConfigError, match="is not on this machine.*llm.allow_remote = true"):
        load_settings(environ=env)
    assert load_settings(environ={**env, "PIKELOCAL_LLM_ALLOW_REMOTE": "true"}).llm.allow_remote


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/v1", "http://localhost:8080/v1", "http://[::1]:8080/v1"])
def test_a_server_on_this_machine_needs_no_opt_in(url: str) -> None:
    env = {"PIKELOCAL_LLM_BACKEND": "openai", "PIKELOCAL_LLM_BASE_URL": url}
    assert load_settings(environ=env).llm.base_url == url


def test_a_new_kb_and_its_wal_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    old = os.umask(0o022)  # the usual umask, under which files are created 0644
    try:
        kb = tmp_path / "private.kb"
        with Store.open(kb, encoder_id="hash-bigram", dim=8):
            modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
    finally:
        os.umask(old)
    assert modes["private.kb"] == 0o600 and modes.get("private.kb-wal", 0o600) == 0o600, modes
    assert all(mode == 0o600 for mode in modes.values()), modes


def test_printable_takes_out_what_drives_a_terminal() -> None:
    hostile = "total\x1b[2J\x1b]0;owned\x07 due\x9b31m \u202eevil\r\n\tnext"
    clean = printable(hostile)
    assert not any(ch in clean for ch in "\x1b\x07\x9b\u202e\r")
    assert clean == "total[2J]0;owned due31m evil\n\tnext"


@pytest.mark.slow  # the real MiniLM encoder, through the CLI
def test_search_and_docs_print_no_escape_sequence_from_a_document(tmp_path: Path) -> None:
    installed_model("minilm-l6-v2/model.onnx")
    doc = tmp_path / "\x1b]0;title\x07notes.txt"
    doc.write_text("The bid deposit\x1b[2J is due on 1 June.\x1b]0;pwned\x07 Deposit refunds follow.\n")
    kb = tmp_path / "kb.kb"
    ingested = run_cli("--encoder", "minilm", "ingest", str(kb), str(doc), "--no-late")
    assert ingested.returncode == 0, ingested.stderr
    listed = run_cli("docs", str(kb))
    found = run_cli("search", str(kb), "deposit", "--mode", "bm25")
    assert found.returncode == 0 and "deposit" in found.stdout.lower(), found.stderr
    for out in (listed.stdout, found.stdout, found.stderr):
        assert "\x1b" not in out and "\x07" not in out, repr(out)


@pytest.mark.slow  # the real MiniLM encoder, through the CLI
def test_docs_and_search_print_a_file_name_with_a_newline_on_one_line(tmp_path: Path) -> None:
    doc = tmp_path / "fake\n  99  ready  1  1  forged.txt"  # a second row, were the newline printed
    doc.write_text("The bid deposit is due on 1 June.\n")
    evil = tmp_path / "report\u202etxt.exe\x9b.txt"
    evil.write_text("Deposit refunds follow within 30 days.\n")
    kb = tmp_path / "kb.kb"
    ingested = run_cli("--encoder", "minilm", "ingest", str(kb), str(doc), str(evil), "--no-late")
    assert ingested.returncode == 0, ingested.stderr
    listed = run_cli("docs", str(kb))
    assert "fake\\n  99  ready" in listed.stdout, listed.stdout
    assert not any(line.lstrip().startswith("99  ready") for line in listed.stdout.splitlines()), listed.stdout
    found = run_cli("search", str(kb), "deposit", "--mode", "bm25")
    assert "fake\\n" in found.stdout and "\u202e" not in found.stdout
    as_json = run_cli("docs", str(kb), "--json")
    assert "\u202e" not in as_json.stdout and "\x9b" not in as_json.stdout and "\\u202e" in as_json.stdout
    assert str(evil) in json.dumps(json.loads(as_json.stdout), ensure_ascii=False)


def test_a_failed_files_name_is_shown_as_docs_lists_a_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One escaping for every file name shown: ingest's failure line, `docs`' failures and its document rows all
    write a newline as \\n, a tab as \\t, and keep two spaces as two (a failure once folded them into one space)."""
    from pikelocal.cli.app import main
    from pikelocal.embed.fake import HashEncoder
    from pikelocal.kb import knowledge_base

    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "good\n  99  ready.txt").write_text("The deposit is due.\n")
    (folder / "bad\n  99  ready.pdf").write_bytes(b"%PDF-1.4 broken")
    (folder / "tab\tname.docx").write_bytes(b"\0\1\2")
    kb = tmp_path / "k.kb"
    with pytest.raises(SystemExit):
        main(["ingest", str(kb), str(folder)])
    ingested = capsys.readouterr().out
    listed = run_cli("docs", str(kb)).stdout
    assert shown_name(str(folder / "good\n  99  ready.txt")) in listed
    for name in ("bad\n  99  ready.pdf", "tab\tname.docx"):
        shown = shown_name(str(folder / name)) + ": not a readable"
        assert shown in ingested and shown in listed, (shown, ingested, listed)
    assert not any(line.lstrip().startswith("99") for line in (ingested + listed).splitlines())
