"""The foundation demo end to end on the real default models (slow)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pikelocal import api
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow


def test_demo_on_the_default_models(tmp_path: Path) -> None:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    lines: list[str] = []
    kb = tmp_path / "demo.kb"
    result = api.demo(api.load_settings(environ={}), kb, lines.append)
    # The JSON answer follows the schema and reads the amount from the clause.
    assert set(result.answer) == {"bid_deposit", "deadline", "performance_bond"}
    assert re.search(r"50,?000|5万|五万|伍万", result.answer["bid_deposit"]), result.answer
    assert "10" in result.answer["performance_bond"]
    # Same meaning across languages is closer than an unrelated sentence.
    assert result.similarities[0, 1] > result.similarities[0, 2] + 0.1
    # The KB was written, read back, served the repeated call from its cache, and is one file after close.
    assert result.cache_hit
    assert result.kb_files == ("demo.kb",)
    # The bundled samples were ingested and the top hybrid hit of each search is the clause that answers it.
    deposit, termination = result.hits
    assert "招标文件" in Path(deposit.document.path).name and "投标保证金" in deposit.chunk.text
    assert "伍万元" in deposit.chunk.text and deposit.chunk.page_start == 1
    assert "supply-agreement" in Path(termination.document.path).name and "terminate" in termination.chunk.text
    # The two-fact question was answered from the samples, citing a source that holds the deposit amount.
    asked = result.asked
    assert asked.mode == "decompose" and 1 <= len(asked.rounds) <= 2 and asked.id is not None
    cited = [s for s in asked.answer.sources if s.number in asked.answer.cited]
    assert cited, asked.answer.text
    assert any("伍万元" in s.text for s in cited), asked.answer
    assert re.search(r"5万|五万|伍万|50,?000", asked.answer.text), asked.answer.text
