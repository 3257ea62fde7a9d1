"""`pikelocal ingest / docs / rm / search` end to end in a subprocess, with the real (small) MiniLM encoder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pikelocal.store.store import Store
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.paths import installed_model

SAMPLES = Path(__file__).resolve().parent.parent / "pikelocal" / "samples"
pytestmark = pytest.mark.slow  # loads the real MiniLM encoder in each subprocess


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """A folder with the bundled samples plus one junk PDF, ingested once into a KB with MiniLM."""
    installed_model("minilm-l6-v2/model.onnx")
    root = tmp_path_factory.mktemp("cli")
    docs = root / "docs"
    shutil.copytree(SAMPLES, docs)
    (docs / "junk.pdf").write_bytes(b"\x00\x01 this is not a PDF at all " * 20)
    kb = root / "lib.kb"
    proc = run_cli("--encoder", "minilm", "ingest", str(kb), str(docs), "--late")  # late: searched below
    return kb, docs, proc.stdout + "\n" + proc.stderr + f"\nrc={proc.returncode}"


def test_ingest_summarises_and_exits_1_when_a_file_failed(library: tuple[Path, Path, str]) -> None:
    kb, docs, output = library
    assert output.endswith("rc=1"), output
    assert "Ingested 3 file(s)" in output and "failed 1" in output, output
    assert "[corrupt]" in output and "junk.pdf" in output, output
    with Store.open_existing(kb) as store:
        assert store.integrity_check() == []
        counts = store.counts()
        assert counts["documents"] == 3 and counts["chunks"] == counts["chunk_vectors"] == counts["late_vectors"] > 3
        assert [f.reason for f in store.docs.failures()] == ["corrupt"]


def test_ingest_again_skips_unchanged_files(library: tuple[Path, Path, str], tmp_path: Path) -> None:
    kb, docs, _ = library
    copy = tmp_path / "copy.kb"
    shutil.copy(kb, copy)
    proc = run_cli("--encoder", "minilm", "ingest", str(copy), str(docs / "supply-agreement-sample.md"))
    assert proc.returncode == 0, proc.stderr
    assert "Ingested 0 file(s)" in proc.stdout and "skipped 1 unchanged" in proc.stdout, proc.stdout


def test_docs_lists_documents_and_failures(library: tuple[Path, Path, str]) -> None:
    kb, _, _ = library
    proc = run_cli("docs", str(kb))
    assert proc.returncode == 0, proc.stderr
    assert "Equipment Supply Agreement (sample)" in proc.stdout and "ready" in proc.stdout
    assert "1 file(s) failed" in proc.stdout and "junk.pdf" in proc.stdout
    data = json.loads(run_cli("docs", str(kb), "--json").stdout)
    assert {d["stage"] for d in data["documents"]} == {"ready"}
    assert any(d["kind"] == "text" and "gb18030" in d["path"] for d in data["documents"])


def test_search_finds_the_clause_with_page_and_marks(library: tuple[Path, Path, str]) -> None:
    kb, _, _ = library
    for mode in ("bm25", "dense", "late", "hybrid"):
        proc = run_cli("search", str(kb), "When may the buyer terminate?", "--mode", mode, "-k", "3", "--json")
        assert proc.returncode == 0, proc.stderr
        hits = json.loads(proc.stdout)
        assert 1 <= len(hits) <= 3
        top = hits[0]
        assert top["document"].endswith("supply-agreement-sample.md"), (mode, top)
        assert top["pages"] == [1, 1] and top["lines"][0] >= 1
        if mode in ("bm25", "hybrid"):
            marked = [top["snippet"][s:e].lower() for s, e in top["marks"]]
            assert any(m.startswith("termin") for m in marked), marked
    text = run_cli("search", str(kb), "投标保证金", "--mode", "bm25").stdout
    assert "[1] 道路改造工程招标文件（示例）.md, p. 1" in text and "[投标保证金]" in text, text


def test_search_reports_a_bad_kb_in_one_line(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("search", str(tmp_path / "none.kb"), "x", "--mode", "bm25"), 5, "does not exist")


def test_rm_removes_a_document_with_its_rows(library: tuple[Path, Path, str], tmp_path: Path) -> None:
    kb, _, _ = library
    copy = tmp_path / "rm.kb"
    shutil.copy(kb, copy)
    with Store.open_existing(copy) as store:
        before = store.counts()
        doc = next(d for d in store.docs.documents() if d.path.endswith("supply-agreement-sample.md"))
        n_chunks = len(store.chunks.chunks_of(doc.id))
    proc = run_cli("rm", str(copy), "supply-agreement-sample.md")
    assert proc.returncode == 0, proc.stderr
    assert "Removed document" in proc.stdout
    with Store.open_existing(copy) as store:
        after = store.counts()
        assert store.integrity_check() == []
    assert after["documents"] == before["documents"] - 1
    for table in ("chunks", "chunk_vectors", "late_vectors"):
        assert after[table] == before[table] - n_chunks
    assert_one_line_error(run_cli("rm", str(copy), "supply-agreement-sample.md"), 6, "no document")
