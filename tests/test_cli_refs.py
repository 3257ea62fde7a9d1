"""`pikelocal refs` and the citation line of `pikelocal stats` at the command line, on a real KB file."""

from __future__ import annotations

import json
from pathlib import Path

from pikelocal.store.store import Store
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.refs_kb import REGULATION, TENDER_TEXT, ingest
from tests.support.search_corpus import ENC


def make_kb(tmp_path: Path) -> Path:
    kb = tmp_path / "kb.sqlite"
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        ingest(store, REGULATION, TENDER_TEXT)
    return kb


def test_refs_lists_citations_with_where_they_lead(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    proc = run_cli("refs", str(kb), "招标文件.txt")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == (
        "[招标文件.txt, p. 1] 《中华人民共和国招标投标法实施条例》第四条第三款 → 中华人民共和国招标投标法实施条例"
        " 第4条第三款, p. 1"
    )
    assert lines[1] == "[招标文件.txt, p. 1] 《建筑法》 → not in the KB"
    assert lines[2] == "[招标文件.txt, p. 1] 本法第九条 → own document: no such article"
    assert lines[-1] == "3 citation(s) in document 招标文件.txt: 1 resolved, 2 not in the KB"
    unresolved = json.loads(run_cli("refs", str(kb), "--unresolved", "--json").stdout)
    assert {r["text"] for r in unresolved} == {
        "《建筑法》",
        "本法第九条",
        "《中华人民共和国招标投标法》",
        "招标投标法第三条",
    }
    assert all(not r["resolved"] for r in unresolved)


def test_refs_reads_a_kb_made_before_citations_existed(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store, store.transaction():
        store.db.execute("DELETE FROM law_refs; DELETE FROM law_articles; UPDATE chunks SET refs_read = NULL")
    before = run_cli("stats", str(kb))
    assert before.returncode == 0, before.stderr
    assert "chunks not read yet" in before.stdout
    proc = run_cli("refs", str(kb))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].startswith("6 citation(s) in ")
    after = run_cli("stats", str(kb)).stdout
    assert "Citations of laws: 6, 2 resolved to their article or law in this KB, 4 not" in after
    assert "not read yet" not in after
    assert "Layers: documents 2, sections " in after and ", citations 6, citations resolved 2" in after


def test_refs_of_an_unknown_document_is_a_one_line_error(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    assert_one_line_error(run_cli("refs", str(kb), "nosuch.pdf"), 6, "nosuch.pdf")


def test_search_shows_where_a_hit_s_citations_lead(tmp_path: Path) -> None:
    kb = make_kb(tmp_path)
    proc = run_cli("search", str(kb), "黄梅县团洲圩治理工程", "--mode", "bm25", "-k", "1")
    assert proc.returncode == 0, proc.stderr
    cite = "《中华人民共和国招标投标法实施条例》第四条第三款"
    assert f"    cites {cite} → 中华人民共和国招标投标法实施条例 第4条第三款, p. 1" in proc.stdout.splitlines()
    args = ("search", str(kb), "黄梅县团洲圩治理工程", "--mode", "bm25", "-k", "1", "--json")
    (hit,) = json.loads(run_cli(*args).stdout)
    assert [(c["text"], c["resolved"]) for c in hit["cites"]] == [(cite, True)]
