"""The CLI on a damaged KB, as a user meets it: 64 bit flips in a page in the middle of a real KB.

A command that would write (`ingest`, `rm`) exits with the knowledge-base file's code (5) and one line naming the
file, the damage and `pikelocal recover`, and writes nothing; a command that only reads (`docs`, `stats`) warns once
on stderr and goes on; a read that meets the damaged page exits with 5 and the same way out, never "unexpected";
`pikelocal recover KB NEW` makes a KB that `doctor` passes, with every chunk, and leaves KB byte for byte as it was.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.cli.app import main
from pikelocal.config import load_settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base
from pikelocal.store import keys
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.damage import build_kb, flip_middle_pages, sha256, side_files, write_docs

CORRUPT = 5  # StoreError's code: the knowledge-base file


@pytest.fixture(autouse=True)
def no_env_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.delenv(keys.ENV_KEY, raising=False)
    yield


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    folder = tmp_path_factory.mktemp("sound")
    kb = folder / "sound.kb"
    return kb, build_kb(kb, write_docs(folder / "docs"), load_settings(environ={}))


@pytest.fixture
def damaged(sound: tuple[Path, int], tmp_path: Path) -> Path:
    kb = tmp_path / "damaged.kb"
    flip_middle_pages(sound[0], kb, ["chunks_fts_data"])
    return kb


def env() -> dict[str, str]:
    return {"PIKELOCAL_KEY": ""}


def one_warning(proc: subprocess.CompletedProcess[str], kb: Path) -> None:
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("WARNING") and f"{kb} is damaged" in lines[0]
    assert f"pikelocal recover {kb} NEW.kb" in lines[0]


def test_ingest_is_refused_with_the_corrupt_code_and_writes_nothing(
    damaged: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())
    more = tmp_path / "more"
    more.mkdir()
    (more / "valves.md").write_text("# Valves\n\nThe valves are checked every spring.\n", encoding="utf-8")
    before = sha256(damaged)
    with pytest.raises(SystemExit) as exit_:
        main(["ingest", str(damaged), str(more)])
    out, err = capsys.readouterr()
    assert exit_.value.code == CORRUPT, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in err, err
    assert f"{damaged} is damaged (" in lines[0] and "chunks_fts" in lines[0]
    assert f"`pikelocal recover {damaged} NEW.kb`" in lines[0]
    assert "Ingested" not in out
    assert sha256(damaged) == before and side_files(damaged) == []


def test_reading_commands_warn_once_and_go_on(damaged: Path) -> None:
    before = sha256(damaged)
    docs = run_cli("docs", str(damaged), env=env())
    assert docs.returncode == 0, docs.stderr
    assert docs.stdout.count("/report") == 6  # every document listed
    one_warning(docs, damaged)
    stats = run_cli("stats", str(damaged), "--json", env=env())
    assert stats.returncode == 0 and '"chunks"' in stats.stdout, stats.stderr
    one_warning(stats, damaged)
    assert sha256(damaged) == before and side_files(damaged) == []


def test_rm_exits_with_the_corrupt_code(damaged: Path) -> None:
    before = sha256(damaged)
    proc = run_cli("rm", str(damaged), "report1.md", env=env())
    assert_one_line_error(proc, CORRUPT, f"{damaged} is damaged", f"pikelocal recover {damaged} NEW.kb")
    assert "unexpected" not in proc.stderr
    assert sha256(damaged) == before and side_files(damaged) == []


def test_a_search_that_meets_the_damaged_page_exits_with_the_corrupt_code_in_one_line(damaged: Path) -> None:
    """The reader's warning is not printed before the error: one line, as a refused writer prints."""
    proc = run_cli("search", str(damaged), "pump serviced", "--mode", "bm25", env=env())
    assert_one_line_error(proc, CORRUPT, f"{damaged} is damaged", "pikelocal recover")
    assert "unexpected" not in proc.stderr


def test_recover_makes_a_kb_that_doctor_passes_and_leaves_the_original_alone(
    damaged: Path, sound: tuple[Path, int], tmp_path: Path
) -> None:
    before = sha256(damaged)
    new = tmp_path / "mended.kb"
    proc = run_cli("recover", str(damaged), str(new), env=env())
    assert proc.returncode == 0, proc.stderr
    assert f"Recovered {sound[1]:,} chunks into {new}" in proc.stdout
    assert "damage: " in proc.stdout and "chunks_fts" in proc.stdout
    assert sha256(damaged) == before and side_files(damaged) == [] and new.exists()
    doctor = run_cli("doctor", str(new), env=env())
    kb_lines = doctor.stdout.split(f"Knowledge base {new}", 1)[1].splitlines()
    integrity = next(line for line in kb_lines if "integrity" in line)
    assert integrity.split() == ["ok", "integrity", "ok"], doctor.stdout
    assert next(line for line in kb_lines if " chunks " in f" {line} ").split()[-1] == str(sound[1])
    found = run_cli("search", str(new), "pump serviced", "--mode", "bm25", env=env())
    assert found.returncode == 0 and "report" in found.stdout and found.stderr == "", found.stderr
    again = run_cli("recover", str(damaged), str(new), env=env())
    assert_one_line_error(again, 6, f"{new} already exists")
