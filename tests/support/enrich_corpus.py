"""The enrichment tests' corpus and scripted LLM: replies built from the prompt, deterministic, in its language.

The fake answers the summarize and atomize prompts like a well-behaved model: a document summary holding a word
found nowhere in the document (``SUMMARY_WORD_*``), a title for a document that has none, and questions that
quote the chunk's own words. Each atomize reply also carries one vague question and one duplicate, which the
parser must drop. Chunks whose text holds ``RETRY_MARK`` get invalid JSON first and a good reply on the retry;
chunks holding ``FAIL_MARK`` get invalid JSON every time.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.llm.base import GenParams, Message
from pikelocal.llm.fake import FakeLLM
from pikelocal.store import db
from pikelocal.store.store import Store
from pikelocal.text.lang import detect_lang

SPLIT = SplitOptions(target=40, min_tokens=10, max_tokens=60)
INGEST = IngestOptions.from_settings(Settings(), split=SPLIT, late=False)

SUMMARY_WORD_EN = "zephyrine"  # occurs in the English summaries only
SUMMARY_WORD_ZH = "麒麟"  # occurs in the Chinese summaries only
GENERATED_TITLE_PREFIX = "Catalogued"
RETRY_MARK = "kingfisher"
FAIL_MARK = "cormorant"
BAD_JSON = "Sure! Here are the questions: {questions: [oops"

ZH_TITLE = "青松市政府采购招标管理办法"
ZH_DOC = (
    f"# {ZH_TITLE}\n\n"
    "## 第一章 总则\n\n"
    "第一条 为规范青松市政府采购招标活动，提高采购资金使用效益，根据有关法律法规，制定本办法。\n\n"
    "第二条 青松市行政机关、事业单位和团体组织使用财政性资金采购货物、工程和服务，适用本办法。\n\n"
    "## 第二章 投标保证金\n\n"
    "第三条 投标人应当在投标截止时间前缴纳投标保证金，金额不得超过采购预算的百分之二。\n\n"
    "第四条 采购人应当在中标通知书发出后五个工作日内退还未中标供应商的投标保证金及银行同期利息。\n\n"
    "## 第三章 评标委员会\n\n"
    "第五条 评标委员会由采购人代表和评审专家组成，成员人数为五人以上单数，其中评审专家不得少于三分之二。\n\n"
    "第六条 评审专家应当从省级以上财政部门设立的专家库中随机抽取，与供应商有利害关系的应当回避。\n"
)
EN_STEM = "pike_field_notes"
EN_DOC = (
    "Northern pike are ambush predators of cool, weedy lakes. They wait motionless among the reeds and "
    "strike at passing roach with a sudden burst of speed.\n\n"
    "Spawning happens in early spring, in flooded meadows where shallow water warms first. Females scatter "
    "sticky eggs over submerged grasses and leave them unguarded.\n\n"
    f"Tagging volunteers measured every captured fish, noted a {RETRY_MARK} diving nearby, and released "
    "each pike with a numbered dorsal marker.\n\n"
    f"Winter surveys drilled holes through thick ice; a {FAIL_MARK} colony roosted on the frozen jetty while "
    "oxygen readings dropped in the shallow northern basin.\n\n"
    "Anglers prize pike for their fight, while biologists read population structure as an indicator of "
    "overall lake health and fishing pressure.\n"
)
SHORT_TITLE = "Lantern Festival Memo"
SHORT_DOC = f"# {SHORT_TITLE}\n\nThe lantern committee meets on Friday to choose colours for the riverside parade.\n"

CORPUS = {"zh_rules.md": ZH_DOC, f"{EN_STEM}.txt": EN_DOC, "lantern.md": SHORT_DOC}
ENGLISH_CORPUS = {f"{EN_STEM}.txt": EN_DOC.replace(RETRY_MARK, "heron").replace(FAIL_MARK, "gull")}


def write_corpus(folder: Path, corpus: dict[str, str] = CORPUS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in corpus.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def open_kb(path: Path, *, create: bool = True) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim, create=create)


def build_kb(path: Path, folder: Path) -> Path:
    """A KB of ``folder`` through the fast path (no late vectors), closed again."""
    with open_kb(path) as store:
        report = Ingestor(store, HashEncoder(), INGEST).ingest_paths([folder])
        assert not report.failed, report.failed
    return path


# --- the scripted model ----------------------------------------------------------------------------------


def _field(pattern: str, text: str) -> str:
    m = re.search(pattern, text)
    assert m is not None, f"the prompt has no {pattern!r}:\n{text}"
    return m.group(1)


def summary_reply(messages: Sequence[Message], params: GenParams) -> str:
    user = messages[1].content
    if "文件名：" in user:
        name, known = _field(r"文件名：(.*)\n", user), _field(r"已知标题：(.*)\n", user)
        title = known if known != "—" else f"{GENERATED_TITLE_PREFIX} {Path(name).stem}"
        summary = f"这是关于{title}的规章，编目代号{SUMMARY_WORD_ZH}，共有若干条款。"
    else:
        name, known = _field(r"File name: (.*)\n", user), _field(r"Known title: (.*)\n", user)
        title = known if known != "—" else f"{GENERATED_TITLE_PREFIX} {Path(name).stem}"
        summary = f"A catalogue note on {name}, filed under {SUMMARY_WORD_EN} by the survey office."
    return json.dumps({"title": title, "summary": summary}, ensure_ascii=False)


def passage_of(messages: Sequence[Message]) -> tuple[str, str]:
    """(document title, chunk text) from an atomize request."""
    user = messages[1].content
    if "文字：\n" in user:
        return _field(r"文档：(.*)\n", user), _field(r"(?s)\n文字：\n(.*)$", user)
    return _field(r"Document: (.*)\n", user), _field(r"(?s)\nPassage:\n(.*)$", user)


_ZH_AVOID = re.compile(r"[它该本此这上]")


def questions_for(title: str, text: str) -> list[str]:
    """Good questions quoting the chunk: three per chunk, each naming its subject."""
    if detect_lang(text) == "zh":
        clauses = [c for c in re.findall(r"[\u4e00-\u9fff]{4,}", text) if not _ZH_AVOID.search(c[:6])]
        return [f"{title}中“{c[:6]}”是怎样规定的？" for c in clauses[:3]]
    words: list[str] = []
    for w in re.findall(r"[A-Za-z]{6,}", text):
        if w.lower() not in words:
            words.append(w.lower())
    longest = sorted(words, key=lambda w: (-len(w), words.index(w)))[:3]
    return [f"What does {title} record about {w}?" for w in longest]


def atomize_reply(messages: Sequence[Message], params: GenParams) -> str:
    title, text = passage_of(messages)
    retrying = len(messages) > 2
    if FAIL_MARK in text or (RETRY_MARK in text and not retrying):
        return BAD_JSON
    good = questions_for(title, text)
    zh = detect_lang(text) == "zh"
    vague = "它的规定是什么？" if zh else "What does it say about that?"
    duplicate = good[0].upper() if not zh else good[0].replace("？", "?")  # same key: case / width / punctuation
    reply: dict[str, object] = {"questions": [*good[:1], vague, duplicate, *good[1:]]}
    return json.dumps(reply, ensure_ascii=False)


SCRIPT: dict[str, Callable[[Sequence[Message], GenParams], str]] = {
    "summarize_document": summary_reply,
    "atomize": atomize_reply,
}


def scripted_llm(**kwargs: object) -> FakeLLM:
    return FakeLLM(SCRIPT, **kwargs)  # type: ignore[arg-type]


def chunk_status(kb: Path) -> dict[int, tuple[str | None, str | None]]:
    """chunk id → (atoms_status, enrich_error), read through a connection of its own."""
    conn = db.connect(kb, readonly=True)
    try:
        return {int(i): (s, e) for i, s, e in conn.execute("SELECT id, atoms_status, enrich_error FROM chunks")}
    finally:
        db.close(conn, readonly=True)


def question_rows(kb: Path) -> list[tuple[int, int, str, str | None]]:
    """Every stored question as (id, chunk id, text, lang), by id."""
    conn = db.connect(kb, readonly=True)
    try:
        return [(int(i), int(c), str(t), lang) for i, c, t, lang in conn.execute("SELECT * FROM questions ORDER BY id")]
    finally:
        db.close(conn, readonly=True)
