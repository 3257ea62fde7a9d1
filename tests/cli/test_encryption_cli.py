"""The CLI's encryption paths in-process (`main`, as the console script runs it), with the hashing encoder:
`ingest --encrypt`, `encrypt`, `rekey`, `--key-file` (global and per command), `PIKELOCAL_KEY`, the prompt, and the
one-line errors of a missing or wrong key."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.cli import keys as cli_keys
from pikelocal.cli.app import main
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base
from pikelocal.llm.fake import FakeLLM
from pikelocal.store import keys
from pikelocal.store.store import Store

SECRET = "Ravensworth Holdings delivers the zirconium turbine for PRJ-QX-20931."
KEY = "tessellated-marmot-42"
WRONG = "encrypted knowledge base: wrong or missing key (give --key-file, set PIKELOCAL_KEY, or type it when asked)"


@pytest.fixture(autouse=True)
def fake_encoder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    monkeypatch.delenv(keys.ENV_KEY, raising=False)
    monkeypatch.chdir(tmp_path)
    yield


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "note.txt").write_text(SECRET + "\n\nThe store room code is Quetzalcoatl-7781.\n", encoding="utf-8")
    return folder


def key_file(tmp_path: Path, key: str, name: str = "kb.key", mode: int = 0o600) -> Path:
    path = tmp_path / name
    path.write_text(key + "\n", encoding="utf-8")
    path.chmod(mode)
    return path


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    """One `pikelocal` invocation as a fresh process would make it: no key remembered from an earlier one."""
    keys._remembered.clear()
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        keys._remembered.clear()
    out, err = capsys.readouterr()
    return code, out, err


def one_line_error(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in err, err
    return lines[0][len("Error: ") :]


def test_ingest_encrypt_with_the_env_key_then_every_command_needs_it(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "secret.kb"
    monkeypatch.setenv(keys.ENV_KEY, KEY)
    code, out, err = run(capsys, "ingest", kb, docs, "--encrypt")
    assert code == 0 and "Ingested 1 file(s)" in out, err
    assert keys.file_kind(kb) == "encrypted" and b"Ravensworth" not in kb.read_bytes()
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600
    code, out, err = run(capsys, "search", kb, "Ravensworth turbine", "--mode", "bm25")
    assert code == 0 and "Ravensworth" in out, err
    assert KEY not in out + err

    monkeypatch.delenv(keys.ENV_KEY)
    for command in (["docs", kb], ["stats", kb], ["search", kb, "turbine", "--mode", "bm25"], ["history", kb]):
        code, out, err = run(capsys, *command)
        assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}", command
    monkeypatch.setenv(keys.ENV_KEY, "not the key")
    code, _, err = run(capsys, "docs", kb)
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"


def test_key_files_global_and_per_command_and_a_private_file_only(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kb = tmp_path / "secret.kb"
    kf = key_file(tmp_path, KEY)
    code, _, err = run(capsys, "--key-file", kf, "ingest", kb, docs, "--encrypt")
    assert code == 0, err
    code, out, err = run(capsys, "docs", kb, "--key-file", kf)
    assert code == 0 and "note" in out, err
    code, out, err = run(capsys, "--key-file", kf, "search", kb, "Quetzalcoatl", "--mode", "bm25")
    assert code == 0 and "store room code is [Quetzalcoatl]-7781" in out, err

    open_kf = key_file(tmp_path, KEY, "open.key", 0o644)
    code, _, err = run(capsys, "docs", kb, "--key-file", open_kf)
    assert code == 6 and "the key file is open to other users (mode 644)" in one_line_error(err)
    wrong = key_file(tmp_path, "other key", "wrong.key")
    code, _, err = run(capsys, "docs", kb, "--key-file", wrong)
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"

    plain = tmp_path / "plain.kb"
    code, _, err = run(capsys, "ingest", plain, docs)
    assert code == 0 and keys.file_kind(plain) == "plain", err
    code, _, err = run(capsys, "docs", plain, "--key-file", kf)
    assert code == 6 and one_line_error(err) == f"{plain}: not encrypted (drop the key, or run `pikelocal encrypt`)"


def test_ingest_refuses_what_would_silently_be_plain_or_cannot_be_encrypted(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kf = key_file(tmp_path, KEY)
    new = tmp_path / "new.kb"
    code, _, err = run(capsys, "ingest", new, docs, "--key-file", kf)  # a key but no --encrypt: not made plain
    assert code == 6 and "add --encrypt to create it encrypted" in one_line_error(err)
    assert not new.exists() or new.stat().st_size == 0
    code, _, err = run(capsys, "ingest", new, docs, "--encrypt")  # no key and no terminal
    assert code == 6 and "--encrypt needs a key" in one_line_error(err)
    plain = tmp_path / "plain.kb"
    assert run(capsys, "ingest", plain, docs)[0] == 0
    code, _, err = run(capsys, "ingest", plain, docs, "--encrypt", "--key-file", kf)
    assert code == 6 and f"run `pikelocal encrypt {plain}`" in one_line_error(err)


def test_encrypt_then_rekey_through_the_cli(tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kb = tmp_path / "lib.kb"
    assert run(capsys, "ingest", kb, docs)[0] == 0
    code, _, err = run(capsys, "encrypt", kb)
    assert code == 6 and "encrypt needs a key" in one_line_error(err)
    kf, new = key_file(tmp_path, KEY), key_file(tmp_path, "a brand new key", "new.key")
    code, out, err = run(capsys, "encrypt", kb, "--key-file", kf)
    assert code == 0 and "Encrypted" in out and "without it the knowledge base cannot be opened" in out, err
    assert keys.file_kind(kb) == "encrypted" and b"Ravensworth" not in kb.read_bytes()
    code, out, _ = run(capsys, "--key-file", kf, "search", kb, "zirconium", "--mode", "bm25")
    assert code == 0 and "Ravensworth" in out

    code, _, err = run(capsys, "rekey", kb, "--key-file", kf)  # no new key, no terminal
    assert code == 6 and "give --new-key-file" in one_line_error(err)
    code, out, err = run(capsys, "rekey", kb, "--key-file", kf, "--new-key-file", new)
    assert code == 0 and "the old key no longer opens it" in out, err
    code, _, err = run(capsys, "docs", kb, "--key-file", kf)
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"
    code, out, err = run(capsys, "docs", kb, "--key-file", new)
    assert code == 0 and "note" in out, err


def test_the_key_is_asked_at_a_terminal_and_the_tui_gets_it_before_it_starts(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typed: list[str] = []
    monkeypatch.setattr(cli_keys, "_interactive", lambda: True)
    monkeypatch.setattr(cli_keys.getpass, "getpass", lambda prompt: typed.pop(0))
    kb = tmp_path / "secret.kb"
    typed[:] = [KEY, "typo"]
    code, _, err = run(capsys, "ingest", kb, docs, "--encrypt")
    assert code == 6 and "the two keys differ" in one_line_error(err) and not (kb.exists() and kb.stat().st_size)
    typed[:] = [KEY, KEY]
    assert run(capsys, "ingest", kb, docs, "--encrypt")[0] == 0 and keys.file_kind(kb) == "encrypted"

    started: list[int] = []

    def fake_run(settings: api.Settings, path: Path | None) -> None:
        assert path is not None
        started.append(api.open_kb(path, settings).stats().counts.documents)  # as the TUI opens it: no key given

    monkeypatch.setattr("pikelocal.tui.app.run", fake_run)
    typed[:] = [KEY]
    code, _, err = run(capsys, "tui", kb)
    assert code == 0 and started == [1] and not typed, err
    typed[:] = ["wrong"]
    code, _, err = run(capsys, "tui", kb)
    assert code == 6 and one_line_error(err) == f"{kb.resolve()}: {WRONG}" and started == [1]
    monkeypatch.setattr(cli_keys, "_interactive", lambda: False)
    code, _, err = run(capsys, "tui", kb)
    assert code == 6 and one_line_error(err) == f"{kb.resolve()}: {WRONG}" and started == [1]
    with Store.open_existing(kb, key=KEY) as store:
        assert store.counts()["documents"] == 1


def test_the_env_key_does_not_stop_or_encrypt_a_plain_kb(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = tmp_path / "plain.kb"
    assert run(capsys, "ingest", plain, docs)[0] == 0
    monkeypatch.setenv(keys.ENV_KEY, KEY)
    for command in (["docs", plain], ["stats", plain], ["search", plain, "zirconium", "--mode", "bm25"]):
        code, out, err = run(capsys, *command)
        assert code == 0 and not err, (command, err)
    (docs / "more.txt").write_text("Ravensworth Holdings also ships the turbine spares.", encoding="utf-8")
    code, out, err = run(capsys, "ingest", plain, docs)
    assert code == 0 and "Ingested 1 file(s)" in out, err
    assert keys.file_kind(plain) == "plain" and b"Ravensworth" in plain.read_bytes()
    code, _, err = run(capsys, "ingest", plain, docs, "--encrypt")  # --encrypt still only makes new KBs
    assert code == 6 and f"run `pikelocal encrypt {plain}`" in one_line_error(err)
    code, _, err = run(capsys, "ingest", tmp_path / "new.kb", docs)  # a new KB: as before, the flag must say so
    assert code == 6 and "add --encrypt to create it encrypted" in one_line_error(err)
    code, _, err = run(capsys, "docs", plain, "--key-file", key_file(tmp_path, KEY))  # an explicit key: refused
    assert code == 6 and one_line_error(err) == f"{plain}: not encrypted (drop the key, or run `pikelocal encrypt`)"


def test_decrypt_through_the_cli(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "secret.kb"
    kf = key_file(tmp_path, KEY)
    assert run(capsys, "ingest", kb, docs, "--encrypt", "--key-file", kf)[0] == 0
    code, _, err = run(capsys, "decrypt", kb)  # no key, no terminal
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"
    code, _, err = run(capsys, "decrypt", kb, "--key-file", key_file(tmp_path, "other key", "wrong.key"))
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"
    assert keys.file_kind(kb) == "encrypted"

    code, out, err = run(capsys, "decrypt", kb, "--key-file", kf)
    assert code == 0 and out.strip() == f"Decrypted {kb}: it is a plain SQLite file again and opens without a key."
    assert not err and KEY not in out
    assert keys.file_kind(kb) == "plain" and b"Ravensworth" in kb.read_bytes()
    assert stat.S_IMODE(kb.stat().st_mode) == 0o600
    code, out, err = run(capsys, "search", kb, "Quetzalcoatl", "--mode", "bm25")  # no key needed any more
    assert code == 0 and "store room code is [Quetzalcoatl]-7781" in out, err
    for args in (["decrypt", kb], ["decrypt", kb, "--key-file", kf]):  # already plain: one line, exit 6
        code, _, err = run(capsys, *args)
        assert code == 6 and one_line_error(err) == f"{kb}: not encrypted, nothing to decrypt", args
    code, _, err = run(capsys, "decrypt", tmp_path / "missing.kb")
    assert code == 6 and one_line_error(err) == f"{tmp_path / 'missing.kb'}: no knowledge base to decrypt"

    monkeypatch.setenv(keys.ENV_KEY, KEY)  # the env key, and the prompt, serve as for the other commands
    assert run(capsys, "encrypt", kb)[0] == 0 and keys.file_kind(kb) == "encrypted"
    code, out, err = run(capsys, "decrypt", kb)
    assert code == 0 and "Decrypted" in out and keys.file_kind(kb) == "plain", err
    monkeypatch.delenv(keys.ENV_KEY)
    assert run(capsys, "encrypt", kb, "--key-file", kf)[0] == 0
    typed = [KEY]
    monkeypatch.setattr(cli_keys, "_interactive", lambda: True)
    monkeypatch.setattr(cli_keys.getpass, "getpass", lambda prompt: typed.pop(0))
    code, out, err = run(capsys, "decrypt", kb)
    assert code == 0 and not typed and keys.file_kind(kb) == "plain", err


def kb_rows(out: str) -> dict[str, tuple[str, str]]:
    """The rows of doctor's knowledge-base section: check name -> (mark, value); the mark is ok, FAIL or ""."""
    rows: dict[str, tuple[str, str]] = {}
    section = out[out.index("Knowledge base ") :]
    for line in section.splitlines()[1:]:
        words = line.split()
        mark = words.pop(0) if words and words[0] in ("ok", "FAIL") else ""
        if len(words) >= 2:
            rows[words[0]] = (mark, " ".join(words[1:]))
    return rows


def test_doctor_takes_the_key_like_the_other_commands(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "secret.kb"
    kf = key_file(tmp_path, KEY)
    assert run(capsys, "ingest", kb, docs, "--encrypt", "--key-file", kf)[0] == 0
    code, out, err = run(capsys, "doctor", kb)  # no key: the KB's check fails, in one line of the report
    assert code == 1 and "Traceback" not in out + err
    assert kb_rows(out) == {"open": ("FAIL", f"{kb}: {WRONG}")}
    for args in (["doctor", kb, "--key-file", kf], ["--key-file", kf, "doctor", kb]):
        code, out, err = run(capsys, *args)
        rows = kb_rows(out)
        assert rows["integrity"] == ("ok", "ok") and rows["documents"] == ("", "1") and "open" not in rows, err
        assert KEY not in out + err
    code, out, _ = run(capsys, "doctor", kb, "--key-file", key_file(tmp_path, "other key", "wrong.key"))
    assert code == 1 and kb_rows(out) == {"open": ("FAIL", f"{kb}: {WRONG}")}
    monkeypatch.setenv(keys.ENV_KEY, KEY)
    assert kb_rows(run(capsys, "doctor", kb)[1])["integrity"] == ("ok", "ok")
    monkeypatch.delenv(keys.ENV_KEY)
    typed = [KEY]
    monkeypatch.setattr(cli_keys, "_interactive", lambda: True)
    monkeypatch.setattr(cli_keys.getpass, "getpass", lambda prompt: typed.pop(0))
    assert kb_rows(run(capsys, "doctor", kb)[1])["integrity"] == ("ok", "ok") and not typed
    monkeypatch.setattr(cli_keys, "_interactive", lambda: False)

    plain = tmp_path / "plain.kb"
    assert run(capsys, "ingest", plain, docs)[0] == 0
    code, out, _ = run(capsys, "doctor", plain, "--key-file", kf)
    assert kb_rows(out) == {"open": ("FAIL", f"{plain}: not encrypted (drop the key, or run `pikelocal encrypt`)")}


@pytest.fixture
def beir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A three-document BEIR folder, and the hashing encoder for `eval retrieval`."""
    monkeypatch.setattr("pikelocal.eval.runner.open_encoder", lambda _settings: HashEncoder())
    folder = tmp_path / "tiny-beir"
    (folder / "qrels").mkdir(parents=True)
    corpus = [("d1", SECRET), ("d2", "The store room code is Quetzalcoatl-7781."), ("d3", "Pumps follow the manual.")]
    (folder / "corpus.jsonl").write_text(
        "".join(json.dumps({"_id": i, "title": "", "text": t}) + "\n" for i, t in corpus), encoding="utf-8"
    )
    (folder / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "zirconium turbine"}) + "\n")
    (folder / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n", encoding="utf-8")
    return folder


def test_eval_retrieval_takes_the_key_and_fails_in_one_line_without_it(
    tmp_path: Path, beir: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kb = tmp_path / "eval.kb"
    kf = key_file(tmp_path, KEY)
    args = ["eval", "retrieval", beir, "--kb", kb, "--modes", "bm25", "--k", "1"]
    code, out, err = run(capsys, *args, "--key-file", kf)  # a KB built with a key is encrypted with it
    assert code == 0 and "| bm25 |" in out and "1.000" in out, err
    assert keys.file_kind(kb) == "encrypted" and b"zirconium" not in kb.read_bytes()
    code, out, err = run(capsys, *args)
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}" and not out
    code, _, err = run(capsys, *args, "--key-file", key_file(tmp_path, "other key", "wrong.key"))
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}"
    code, out, err = run(capsys, *args, "--key-file", kf)  # reused, not rebuilt
    assert code == 0 and "1.000" in out, err
    monkeypatch.setenv(keys.ENV_KEY, KEY)
    assert run(capsys, *args)[0] == 0
    monkeypatch.delenv(keys.ENV_KEY)

    plain = tmp_path / "plain.kb"
    plain_args = ["eval", "retrieval", beir, "--kb", plain, "--modes", "bm25", "--k", "1"]
    assert run(capsys, *plain_args)[0] == 0 and keys.file_kind(plain) == "plain"
    code, _, err = run(capsys, *plain_args, "--key-file", kf)
    assert code == 6 and one_line_error(err) == f"{plain}: not encrypted (drop the key, or run `pikelocal encrypt`)"
    # a KB built with the defaults has no late vectors: the late row is left out with a note, not scored as zeros
    code, out, err = run(capsys, "eval", "retrieval", beir, "--kb", plain, "--modes", "bm25,late", "--k", "1")
    assert code == 0 and "| bm25 |" in out and "| late |" not in out, err
    assert "note: late left out: the KB has no late-chunked vectors" in out


def test_eval_qa_takes_the_key_and_fails_in_one_line_without_it(
    tmp_path: Path, docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []

    def fake_llm(_settings: api.Settings) -> FakeLLM:
        loaded.append("llm")
        return FakeLLM({"answer-quote": f"Quote: {SECRET}\nAnswer: Ravensworth Holdings"})

    monkeypatch.setattr("pikelocal.llm.factory.open_llm", fake_llm)
    kb = tmp_path / "secret.kb"
    kf = key_file(tmp_path, KEY)
    assert run(capsys, "ingest", kb, docs, "--encrypt", "--key-file", kf)[0] == 0
    questions = tmp_path / "tiny_questions.json"
    question = {"id": "q1", "question": "Who delivers the zirconium turbine?", "answer": "Ravensworth Holdings",
                "type": "bridge", "supporting_titles": ["note"]}  # fmt: skip
    questions.write_text(json.dumps([question]), encoding="utf-8")
    args = ["eval", "qa", questions, "--kb", kb, "--modes", "naive", "--results", tmp_path / "answers.jsonl"]
    code, out, err = run(capsys, *args)  # no key: one line, before any model is loaded
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}" and not out and not loaded
    code, _, err = run(capsys, *args, "--key-file", key_file(tmp_path, "other key", "wrong.key"))
    assert code == 6 and one_line_error(err) == f"{kb}: {WRONG}" and not loaded
    code, out, err = run(capsys, *args, "--key-file", kf)
    assert code == 0 and "| naive |" in out and loaded == ["llm"], err
    assert json.loads((tmp_path / "answers.jsonl").read_text(encoding="utf-8"))["em"] == 1.0
