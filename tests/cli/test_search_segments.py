"""`pikelocal search --segments` in-process, with the hashing encoder on the answering tests' small KB: segments in
place of chunk hits, each a run of consecutive chunks with its value, within answer.context_tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pikelocal.cli.app import main
from pikelocal.embed.fake import HashEncoder
from pikelocal.kb import knowledge_base
from pikelocal.query.context.expand import estimate_tokens
from pikelocal.store.store import Store
from tests.support.answer_kb import ENC, build, chunk_with


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("segments_cli"), questions=False)


@pytest.fixture(autouse=True)
def fake_encoder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(knowledge_base, "open_encoder", lambda _settings: HashEncoder())


def run(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str, str]:
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_segments_are_runs_of_chunks_with_their_values(kb: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "search", kb, "Step 5 of the pump", "--mode", "bm25", "--segments", "--json")
    assert code == 0, err
    rows = json.loads(out)
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        top = chunk_with(store, "Step 5 of the pump")
    assert rows and top.id in rows[0]["chunk_ids"]  # the top hit is in the first segment
    for row in rows:
        ords = row["chunk_ords"]
        assert ords == list(range(ords[0], ords[0] + len(ords)))  # consecutive
        assert row["value"] == pytest.approx(sum(row["chunk_values"]))
        assert len(row["chunk_ranks"]) == len(ords)
    placed = [(row["document"], o) for row in rows for o in row["chunk_ords"]]
    assert len(placed) == len(set(placed))  # no overlap


def test_segments_keep_within_the_answer_budget_and_print_readably(
    kb: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PIKELOCAL_ANSWER_CONTEXT_TOKENS", "300")
    code, out, err = run(capsys, "search", kb, "pump valve pressure", "--segments", "--json", "--preset", "find_all")
    assert code == 0, err
    rows = json.loads(out)
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        chunks = {c.id: c for c in store.chunks.get_chunks([cid for row in rows for cid in row["chunk_ids"]])}
    assert sum(estimate_tokens(chunks[cid].text) for row in rows for cid in row["chunk_ids"]) + 12 * len(rows) <= 300
    code, out, err = run(capsys, "search", kb, "pump valve pressure", "--segments", "--preset", "find_all")
    assert code == 0, err
    assert out.startswith("[1] ") and "  value " in out and " of the document, ranked " in out
    assert "score" not in out  # segments, not chunk hits
