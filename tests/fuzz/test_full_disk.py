"""A full disk during ingestion: the run stops with an error that says the disk is full, the KB stays
sound (integrity check, no duplicate rows, no document marked done without its chunks and vectors), and once
there is room again the same ingest finishes with what a run on an empty disk gives.

The disk is a small tmpfs, mounted for the test; where mounting is not allowed (not root, or no mount namespace)
the test is skipped with that reason.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.errors import DiskFullError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.store.store import Store
from tests.support.cli import run_cli
from tests.support.kb_checks import duplicates
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow

ENC = HashEncoder()
OPTIONS = IngestOptions.from_settings(Settings(), late=False)
WORDS = [
    "contract",
    "tender",
    "bid",
    "bond",
    "deposit",
    "clause",
    "notice",
    "party",
    "delivery",
    "goods",
    "price",
    "schedule",
    "penalty",
]


def mount(point: Path, size: str, *, remount: bool = False) -> subprocess.CompletedProcess[str]:
    opts = f"remount,size={size}" if remount else f"size={size}"
    return subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", str(point)], capture_output=True, text=True)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    point = tmp_path / "disk"
    point.mkdir()
    try:
        # room for a new KB (430 KB since schema 10, plus its WAL while migrating), not for the ingest (~2 MB)
        done = mount(point, "1m")
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], capture_output=True)


def write_docs(folder: Path) -> Path:
    rng = random.Random(20261123)
    folder.mkdir()
    for i in range(12):
        paras = (" ".join(rng.choice(WORDS) for _ in range(60)) + f" item {i}-{p}." for p in range(40))
        (folder / f"doc{i:02d}.md").write_text(f"# Document {i}\n\n" + "\n\n".join(paras), encoding="utf-8")
    return folder


def content(kb: Path) -> dict[str, tuple[str, list[str], int]]:
    """Per document path: its stage, its chunk texts in order, and how many of them have a vector."""
    with Store.open_existing(kb) as store:
        out = {}
        for d in store.docs.documents():
            chunks = store.chunks.chunks_of(d.id)
            vectors = sum(store.index.vector("chunk", c.id) is not None for c in chunks)
            out[d.path] = (d.stage, [c.text for c in chunks], vectors)
        return out


def test_a_full_disk_stops_the_ingest_cleanly_and_the_same_ingest_finishes_once_there_is_room(
    tmp_path: Path, small_disk: Path
) -> None:
    docs = write_docs(tmp_path / "docs")
    clean = tmp_path / "clean.kb"
    with Store.open(clean, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        assert not Ingestor(store, ENC, OPTIONS).ingest_paths([docs]).failed
    want = content(clean)
    assert len(want) == 12 and all(stage == "ready" and n == len(texts) for stage, texts, n in want.values())

    kb = small_disk / "kb.kb"
    with (
        pytest.raises(DiskFullError, match="database or disk is full") as raised,
        Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store,
    ):
        Ingestor(store, ENC, OPTIONS).ingest_paths([docs])
    assert str(kb) in str(raised.value) and "run the same command again" in str(raised.value)
    assert duplicates(kb) == []  # the KB on the full disk is sound
    partial = content(kb)
    assert len(partial) < 12 or any(stage != "ready" for stage, _, _ in partial.values())  # the disk did fill
    for path, (stage, texts, vectors) in partial.items():  # what is done is whole
        if stage == "ready":
            assert (texts, vectors) == (want[path][1], want[path][2]), path

    assert mount(small_disk, "20m", remount=True).returncode == 0
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim, create=False) as store:
        report = Ingestor(store, ENC, OPTIONS).ingest_paths([docs])
        assert not report.failed, [o.message for o in report.failed]
    assert duplicates(kb) == []
    assert content(kb) == want


def test_the_command_line_says_the_disk_is_full_in_one_line_and_exits_5(tmp_path: Path, small_disk: Path) -> None:
    installed_model("minilm-l6-v2")  # a quick real encoder
    docs = write_docs(tmp_path / "docs")
    kb = small_disk / "kb.kb"
    proc = run_cli("ingest", str(kb), str(docs), "--no-late", env={"PIKELOCAL_ENCODER_MODEL": "minilm"})
    assert proc.returncode == 5, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[-1].startswith(f"Error: {kb}: database or disk is full: free some space"), proc.stderr
    assert sum("disk is full" in line for line in lines) == 1, proc.stderr  # the batch stops at the first
    assert duplicates(kb) == []
