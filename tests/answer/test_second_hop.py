"""ask() with the system-driven second hop (answer.hop, query/answer/second_hop.py) on a real KB of five short pages and
a scripted model that answers each hop's sub-question: comparisons decided by the system, a bridge hop, a value
that is missing, equal or invented → "not stated"."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.answers import QueryTrace
from pikelocal.domain.events import AnswerDelta, Event
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.query.answer.modes import AskOptions, ask
from pikelocal.query.answer.second_hop import HOP_TAG
from pikelocal.store.store import Store

ENC = HashEncoder()
PAGES = {
    "Harbour Lights": "Harbour Lights is a 1931 British drama film directed by Maud Ellery. It was shot in Cornwall.",
    "Desert Crossing": "Desert Crossing is a 1948 American western film directed by Tomas Reyes.",
    "Quiet Valley": "Quiet Valley is a 1931 French comedy film directed by Louis Marchand.",
    "Maud Ellery": "Maud Ellery (3 March 1890 – 12 June 1961) was a British film director. She was born in Bristol.",
    "Tomas Reyes": "Tomas Reyes (born 1902 in Seville) is a Spanish-born American film director and writer.",
}
OPTIONS = AskOptions.from_settings(Settings(), mode="naive", k=3, neighbours=0, compress_tokens=0, quote=True, hop=True)


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("second-hop")
    folder = root / "docs"
    folder.mkdir()
    for title, text in PAGES.items():
        (folder / f"{title}.md").write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    path = root / "kb.sqlite"
    options = IngestOptions.from_settings(
        Settings(), split=SplitOptions(target=60, min_tokens=5, max_tokens=120), late=False
    )
    with Store.open(path, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        assert not Ingestor(store, ENC, options).ingest_paths([folder]).failed
    return path


def hops(replies: Mapping[str, str]) -> FakeLLM:
    """A model that answers each hop's sub-question (the prompt's last line) with its scripted reply."""

    def reply(messages: Sequence[Message], _params: GenParams) -> str:
        asked = re.findall(r"^Question: (.+)$", messages[-1].content, flags=re.M)[-1]
        return replies.get(asked, "Quote: none\nAnswer: The documents do not state this.")

    return FakeLLM({HOP_TAG: reply})


def answer(kb: Path, question: str, llm: FakeLLM, options: AskOptions = OPTIONS) -> tuple[QueryTrace, str]:
    events: list[Event] = []
    with Store.open(kb, encoder_id=ENC.model_id, dim=ENC.dim) as store:
        trace = ask(store, ENC, llm, question, options, events.append, save=False)
    return trace, "".join(e.text for e in events if isinstance(e, AnswerDelta))


RELEASED = {
    "When was the film Harbour Lights released?": (
        "Quote: Harbour Lights is a 1931 British drama film directed by Maud Ellery.\nAnswer: 1931"
    ),
    "When was the film Desert Crossing released?": (
        "Quote: Desert Crossing is a 1948 American western film directed by Tomas Reyes.\nAnswer: 1948"
    ),
    "When was the film Quiet Valley released?": (
        "Quote: Quiet Valley is a 1931 French comedy film directed by Louis Marchand.\nAnswer: 1931"
    ),
}
DIRECTORS = {
    "Who directed the film Harbour Lights?": (
        "Quote: Harbour Lights is a 1931 British drama film directed by Maud Ellery.\nAnswer: Maud Ellery"
    ),
    "Who directed the film Desert Crossing?": (
        "Quote: Desert Crossing is a 1948 American western film directed by Tomas Reyes.\nAnswer: Tomas Reyes"
    ),
}


def cited_texts(trace: QueryTrace) -> list[str]:
    return [c.evidence.text for c in trace.answer.claims if c.evidence is not None]


def test_a_comparison_is_decided_by_the_system_and_cited_by_both_quotes(kb: Path) -> None:
    llm = hops(RELEASED)
    trace, streamed = answer(kb, "Which film came out first, Harbour Lights or Desert Crossing?", llm)
    assert trace.answer.text.startswith("Harbour Lights [") and streamed == trace.answer.text
    assert len(trace.answer.cited) == 2 and not trace.answer.unsupported
    quotes = [
        RELEASED[f"When was the film {f} released?"][7:].split("\n")[0] for f in ("Harbour Lights", "Desert Crossing")
    ]
    assert [q in text for q, text in zip(quotes, cited_texts(trace), strict=True)] == [True, True]
    assert len(llm.calls_for(HOP_TAG)) == 2 and [c.tag for c in trace.calls] == [HOP_TAG, HOP_TAG]
    later, _ = answer(kb, "Which film was released more recently, Harbour Lights or Desert Crossing?", hops(RELEASED))
    assert later.answer.text.startswith("Desert Crossing [")


def test_equal_values_decide_nothing(kb: Path) -> None:
    trace, _ = answer(kb, "Which film came out first, Harbour Lights or Quiet Valley?", hops(RELEASED))
    assert trace.answer.unsupported and trace.answer.text == "The documents do not state this."


def test_a_bridge_comparison_reads_each_director_and_a_missing_death_is_not_stated(kb: Path) -> None:
    replies = {
        **DIRECTORS,
        # the model answers with the birth date: the life span in its quote says which date is the death
        "When did Maud Ellery die?": (
            "Quote: Maud Ellery (3 March 1890 – 12 June 1961) was a British film director.\nAnswer: 3 March 1890"
        ),
    }
    llm = hops(replies)
    trace, _ = answer(kb, "Which film has the director who died later, Harbour Lights or Desert Crossing?", llm)
    asked = [re.findall(r"^Question: (.+)$", c.messages[-1].content, flags=re.M)[-1] for c in llm.calls]
    assert asked == [
        "Who directed the film Harbour Lights?",
        "When did Maud Ellery die?",
        "Who directed the film Desert Crossing?",
        "When did Tomas Reyes die?",
    ]
    assert trace.answer.unsupported and trace.answer.text == "The documents do not state this."
    kept = [c for c in trace.answer.claims if c.verdict == "supported"]
    assert [c.text for c in kept] == ["Maud Ellery", "12 June 1961", "Tomas Reyes"]


def test_a_bridge_comparison_by_birth(kb: Path) -> None:
    replies = {
        **DIRECTORS,
        "When was Maud Ellery born?": (
            "Quote: Maud Ellery (3 March 1890 – 12 June 1961) was a British film director.\nAnswer: 3 March 1890"
        ),
        "When was Tomas Reyes born?": (
            "Quote: Tomas Reyes (born 1902 in Seville) is a Spanish-born American film director and writer.\n"
            "Answer: 1902"
        ),
    }
    trace, _ = answer(kb, "Which film whose director is younger, Harbour Lights or Desert Crossing?", hops(replies))
    assert trace.answer.text.startswith("Desert Crossing [") and len(trace.answer.cited) == 4


def test_a_composition_goes_through_the_bridge(kb: Path) -> None:
    replies = {
        **DIRECTORS,
        "Where was Maud Ellery born?": "Quote: She was born in Bristol.\nAnswer: Bristol, England",
    }
    llm = hops(replies)
    trace, _ = answer(kb, "Where was the director of film Harbour Lights born?", llm)
    # the answer is what stands in the quote ("England" does not), cited by the bridge's quote and its own
    assert trace.answer.text.startswith("Bristol [") and len(trace.answer.cited) == 2
    first, second = cited_texts(trace)
    assert "directed by Maud Ellery." in first and second == "She was born in Bristol."
    sources = {s.number: s.title for s in trace.answer.sources}
    assert [sources[n] for n in trace.answer.cited] == ["Harbour Lights", "Maud Ellery"]


def test_an_invented_quote_is_dropped_and_the_answer_is_not_stated(kb: Path) -> None:
    replies = {**DIRECTORS, "Where was Maud Ellery born?": "Quote: Her family were Paris merchants.\nAnswer: Paris"}
    trace, _ = answer(kb, "Where was the director of film Harbour Lights born?", hops(replies))
    assert trace.answer.unsupported and trace.answer.text == "The documents do not state this."
    assert "Paris" not in trace.answer.text and trace.answer.cited == ()
    (rejected,) = [c for c in trace.answer.claims if c.verdict != "supported"]
    assert rejected.text == "Paris" and "invention" in rejected.reason


def test_the_system_reads_the_bridge_from_the_quote_when_the_model_misses_it(kb: Path) -> None:
    replies = {
        "Who directed the film Harbour Lights?": (  # the model quotes the right sentence, then answers the film
            "Quote: Harbour Lights is a 1931 British drama film directed by Maud Ellery.\nAnswer: Harbour Lights"
        ),
        "Where was Maud Ellery born?": "Quote: She was born in Bristol.\nAnswer: Bristol",
    }
    trace, _ = answer(kb, "Where was the director of film Harbour Lights born?", hops(replies))
    assert trace.answer.text.startswith("Bristol [")
    assert [(c.text, c.method) for c in trace.answer.claims] == [("Maud Ellery", "hop-read"), ("Bristol", "hop")]


def test_an_entity_no_source_names_costs_no_call(kb: Path) -> None:
    llm = hops({})
    trace, _ = answer(kb, "Where was the director of film Moonlit Orchard born?", llm)
    assert trace.answer.unsupported and llm.calls == [] and trace.calls == ()


def test_same_country_is_yes_or_no(kb: Path) -> None:
    replies = {
        "Which country is the film Harbour Lights from?": (
            "Quote: Harbour Lights is a 1931 British drama film directed by Maud Ellery.\nAnswer: United Kingdom"
        ),
        "Which country is the film Quiet Valley from?": (
            "Quote: Quiet Valley is a 1931 French comedy film directed by Louis Marchand.\nAnswer: France"
        ),
    }
    trace, _ = answer(kb, "Are the movies Harbour Lights and Quiet Valley, from the same country?", hops(replies))
    assert trace.answer.text.startswith("No [") and len(trace.answer.cited) == 2


def test_without_the_switch_the_question_goes_to_quote_then_answer(kb: Path) -> None:
    llm = FakeLLM({"answer-quote": "Quote: Harbour Lights is a 1931 British drama film.\nAnswer: Harbour Lights"})
    options = AskOptions.from_settings(
        Settings(), mode="naive", k=3, neighbours=0, compress_tokens=0, quote=True, hop=False
    )
    answer(kb, "Which film came out first, Harbour Lights or Desert Crossing?", llm, options)
    assert [c.tag for c in llm.calls] == ["answer-quote"]
