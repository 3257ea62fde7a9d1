"""The system-driven second hop on the real default LLM and encoder (slow), over two short documents of our own: a
film and its director. "Where was the director of film X born?" is asked as "Who directed the film X?" over one
search, then "Where was <director> born?" over another; the answer is cited by both quotes, each in its own
document."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.domain.answers import QueryTrace
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
DOCS = {
    "The Copper Lantern.txt": (
        "The Copper Lantern is a 1952 Irish drama film directed by Eamon Keane. It follows a lighthouse keeper on the"
        " west coast who takes in a shipwrecked sailor during a winter storm."
    ),
    "Eamon Keane.txt": (
        "Eamon Keane (4 May 1911 – 2 March 1979) was an Irish film director and screenwriter. He was born in Galway"
        " and studied painting in Dublin before he made documentaries for the national broadcaster."
    ),
}
SETTINGS = {"ingest.late": False, "answer.mode": "naive", "answer.quote": True, "answer.hop": True}


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    installed_model("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")
    installed_model("embeddinggemma-300m/model.onnx")
    root = tmp_path_factory.mktemp("second-hop-real")
    paths = []
    for name, text in DOCS.items():
        (root / name).write_text(text + "\n", encoding="utf-8")
        paths.append(root / name)
    path = root / "kb.sqlite"
    with api.open_kb(path, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        assert knowledge_base.add(paths).ingest.count("ingested") == 2
    return path


def ask(kb: Path, question: str) -> QueryTrace:
    with api.open_kb(kb, api.load_settings(environ={}, overrides=SETTINGS)) as knowledge_base:
        return knowledge_base.ask(question, api.AskRequest(mode="naive"))


def cited_documents(trace: QueryTrace) -> list[str]:
    sources = {s.number: Path(s.path).name for s in trace.answer.sources}
    return [sources[n] for n in trace.answer.cited]


def test_the_directors_birth_place_is_found_through_the_director(kb: Path) -> None:
    trace = ask(kb, "Where was the director of film The Copper Lantern born?")
    assert trace.answer.text.startswith("Galway"), (trace.answer.text, trace.answer.claims)
    assert cited_documents(trace) == ["The Copper Lantern.txt", "Eamon Keane.txt"]
    assert [c.tag for c in trace.calls] == ["answer-hop", "answer-hop"]


def test_the_directors_death_is_read_as_the_end_of_his_life_span(kb: Path) -> None:
    trace = ask(kb, "When did the director of film The Copper Lantern die?")
    assert "1979" in trace.answer.text and "1911" not in trace.answer.text, (trace.answer.text, trace.answer.claims)
    assert cited_documents(trace) == ["The Copper Lantern.txt", "Eamon Keane.txt"]
