"""A stored review row is made under the settings it was asked with: a change to any setting declared to change an
answer (``Spec.answers`` in pikelocal/config.py) asks it again, and a change to one that cannot (display, paths,
threads, timing, permissions) keeps it. Every declared setting is tried, so a new one is covered the day it is
declared."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pikelocal import api
from pikelocal.config import SCHEMA, Declared, Settings, answers_key, apply
from pikelocal.embed.fake import HashEncoder
from pikelocal.llm.fake import FakeLLM
from tests.support.review_kb import RFP, RULES, quote_first

ONE_ITEM = """name = "one"
title = "一项"

[[items]]
id = "bond"
label = "投标保证金"
section = "金额"
kind = "amount"
question.hans = "投标保证金是多少？"
hints = ["投标保证金"]
"""
# Whatever a changed setting makes the answering path ask, the model has a reply.
SCRIPT = {
    "answer-quote": quote_first,
    "answer": "投标保证金为人民币5万元 [1]。",
    "answer-hop": "原文：无\n答案：文档中没有说明",
    "rerank": '{"ranking": [1]}',
    "propose_subquestions": '{"sub_questions": []}',
    "select_atom": '{"pick": 0}',
    "answer-select": "1",  # answer.select on: the first statement
}
ANSWERING = [d for d in SCHEMA if d.spec.answers]
NOT_ANSWERING = [d for d in SCHEMA if not d.spec.answers]
# Where any other string would not do: a file that must exist ("none": no concept groups at all).
OTHER = {"answer.concepts": "none"}


def other_value(d: Declared) -> Any:
    """A value of ``d`` other than its default, within what it allows."""
    if d.key in OTHER:
        return OTHER[d.key]
    if d.spec.choices:
        return next(c for c in d.spec.choices if c != d.default)
    if d.kind == "bool":
        return not d.default
    if d.kind == "str":
        return f"{d.default}-other"
    step = 1 if d.kind == "int" else 0.1
    return d.default - step if d.spec.le is not None and d.default + step > d.spec.le else d.default + step


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A KB whose one-item checklist was answered under the default settings."""
    tmp = tmp_path_factory.mktemp("review-settings")
    docs = tmp / "docs"
    docs.mkdir()
    (docs / "rfp.md").write_text(RFP, encoding="utf-8")
    (docs / "rules.md").write_text(RULES, encoding="utf-8")
    checklist = tmp / "one.toml"
    checklist.write_text(ONE_ITEM, encoding="utf-8")
    path = tmp / "t.kb"
    with api.open_kb(path, Settings(), encoder=HashEncoder()) as knowledge_base:
        assert not knowledge_base.add([docs]).ingest.failed
    assert review(path, checklist, Settings()).asked == 1
    return path, checklist


def review(path: Path, checklist: Path, settings: Settings) -> api.ReviewReport:
    with api.open_kb(path, settings, encoder=HashEncoder(), llm=FakeLLM(SCRIPT)) as knowledge_base:
        return knowledge_base.review(api.ReviewRequest(str(checklist)))


def test_the_key_holds_every_answering_setting_and_never_a_secret() -> None:
    assert ANSWERING and NOT_ANSWERING
    assert not [d.key for d in SCHEMA if d.spec.secret and d.spec.answers]
    assert {"answer.k", "answer.rerank", "answer.mode", "llm.model", "search.fusion"} <= {d.key for d in ANSWERING}
    assert {"search.k", "llm.threads", "llm.timeout_s", "models_dir"} <= {d.key for d in NOT_ANSWERING}
    changed = apply(Settings(), {"llm.api_key": "secret-other"}, "test")
    assert answers_key(changed) == answers_key(Settings())


@pytest.mark.parametrize("declared", ANSWERING, ids=lambda d: d.key)
def test_a_changed_answering_setting_asks_the_stored_row_again(reviewed: tuple[Path, Path], declared: Declared) -> None:
    path, checklist = reviewed
    changed = apply(Settings(), {declared.key: other_value(declared)}, "test")
    assert review(path, checklist, changed).asked == 1
    assert review(path, checklist, changed).asked == 0  # and kept under the same settings
    assert review(path, checklist, Settings()).asked == 1  # back to the defaults: asked again


@pytest.mark.parametrize("declared", NOT_ANSWERING, ids=lambda d: d.key)
def test_a_changed_display_path_thread_or_timing_setting_keeps_the_stored_row(
    reviewed: tuple[Path, Path], declared: Declared
) -> None:
    path, checklist = reviewed
    changed = apply(Settings(), {declared.key: other_value(declared)}, "test")
    report = review(path, checklist, changed)
    assert report.asked == 0 and report.kept == 1
