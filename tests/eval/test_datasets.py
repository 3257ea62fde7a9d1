"""Evaluation-set loaders: synthetic files in tmp_path, then the real sets in ../shared/data (skipped if absent)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pikelocal.domain.errors import InputError
from pikelocal.eval.datasets import (
    CorpusDoc,
    EvalQuery,
    LawArticle,
    choose_law_files,
    detect_layout,
    find_multihop,
    load_beir,
    load_law_articles,
    load_multihop,
    resolve_lawbench_questions,
    subset,
)


def write_jsonl(path: Path, records: list[object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def write_json(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def one_line(err: pytest.ExceptionInfo[InputError]) -> str:
    message = str(err.value)
    assert "\n" not in message
    return message


# --- BEIR ------------------------------------------------------------------------------------------------------


@pytest.fixture
def beir(tmp_path: Path) -> Path:
    folder = tmp_path / "tiny"
    write_jsonl(
        folder / "corpus.jsonl",
        [
            {"_id": "d1", "title": "T1", "text": "one"},
            {"_id": 2, "text": "two"},
            {"_id": "d3", "title": None, "text": ""},
        ],
    )
    write_jsonl(
        folder / "queries.jsonl", [{"_id": "q1", "text": "first"}, {"_id": "q2", "text": "x"}, {"_id": 3, "text": "t"}]
    )
    (folder / "qrels").mkdir()
    # q1: two judged docs (one graded 2) and a 0; q2: only a 0, so dropped; 3: judged; q9 is not in queries.jsonl
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\t2\t2\nq1\td3\t0\n\nq2\td1\t0\n3\td3\t1.0\nq9\td1\t1\n"
    )
    (folder / "qrels" / "dev.tsv").write_text("q2\t2\t1\n")  # no header
    return folder


def test_load_beir(beir: Path) -> None:
    data = load_beir(beir)
    assert data.name == "tiny"
    assert data.docs == (CorpusDoc("d1", "T1", "one"), CorpusDoc("2", "", "two"), CorpusDoc("d3", "", ""))
    assert data.queries == (EvalQuery("q1", "first", {"d1": 1, "2": 2}), EvalQuery("3", "t", {"d3": 1}))
    dev = load_beir(beir, split="dev", name="tiny-dev")
    assert dev.name == "tiny-dev" and dev.queries == (EvalQuery("q2", "x", {"2": 1}),)


@pytest.mark.parametrize(
    ("target", "content", "expected"),
    [
        ("corpus.jsonl", '{"_id": "d1", "text": "one"}\n{"_id": "d2", "text": \n', r"corpus\.jsonl:2: malformed JSON"),
        ("corpus.jsonl", '["d1", "one"]\n', r"corpus\.jsonl:1: expected a JSON object"),
        ("corpus.jsonl", '{"_id": "d1", "title": "no text"}\n', r"corpus\.jsonl:1: missing field 'text'"),
        ("corpus.jsonl", '{"_id": "d1", "text": "a"}\n{"_id": "d1", "text": "b"}\n', r"corpus\.jsonl:2: duplicate _id"),
        ("corpus.jsonl", '{"_id": "d1", "text": ["a"]}\n', r"corpus\.jsonl:1: field 'text' must be a string"),
        ("queries.jsonl", '{"text": "no id"}\n', r"queries\.jsonl:1: missing field '_id'"),
        ("qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1 d1 1\n", r"test\.tsv:2: expected 3 tab-separated"),
        ("qrels/test.tsv", "q1\td1\thigh\n", r"test\.tsv:1: score 'high' is not an integer"),
        ("qrels/test.tsv", "q1\td1\t0.5\n", r"test\.tsv:1: score '0.5' is not an integer"),
    ],
)
def test_load_beir_malformed(beir: Path, target: str, content: str, expected: str) -> None:
    (beir / target).write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=expected) as err:
        load_beir(beir)
    assert one_line(err).startswith(str(beir / target))


def test_load_beir_missing_files(beir: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"qrels/nope\.tsv: file not found"):
        load_beir(beir, split="nope")
    (beir / "queries.jsonl").unlink()
    with pytest.raises(InputError, match=r"queries\.jsonl: file not found"):
        load_beir(beir)
    with pytest.raises(InputError, match="not found"):
        load_beir(tmp_path / "absent")
    with pytest.raises(InputError, match="not a folder"):
        load_beir(beir / "corpus.jsonl")
    (beir / "corpus.jsonl").write_bytes(b'{"_id": "d1", "text": "\xff"}\n')
    with pytest.raises(InputError, match=r"corpus\.jsonl: not UTF-8 text"):
        load_beir(beir)


# --- multi-hop -------------------------------------------------------------------------------------------------

CORPUS = [
    {"doc_id": 0, "title": "A", "text": "a"},
    {"doc_id": 1, "title": "B", "text": "b"},
    {"doc_id": 2, "text": "c"},
]
QUESTIONS = [
    {"id": "x1", "question": "A and B?", "answer": "yes", "gold_doc_ids": [0, 1]},
    {"id": "x2", "question": "C?", "gold_doc_ids": "[2]"},  # a stringified list is accepted
    {"id": "x3", "question": "None?", "gold_doc_ids": []},  # nothing to retrieve: skipped
]


def test_load_multihop(tmp_path: Path) -> None:
    corpus = write_json(tmp_path / "toy_dev_corpus.json", CORPUS)
    questions = write_json(tmp_path / "toy_dev_questions.json", QUESTIONS)
    data = load_multihop(corpus, questions)
    assert data.name == "toy_dev"
    assert data.docs == (CorpusDoc("0", "A", "a"), CorpusDoc("1", "B", "b"), CorpusDoc("2", "", "c"))
    assert data.queries == (EvalQuery("x1", "A and B?", {"0": 1, "1": 1}), EvalQuery("x2", "C?", {"2": 1}))
    assert load_multihop(corpus, questions, name="toy").name == "toy"


@pytest.mark.parametrize(
    ("which", "content", "expected"),
    [
        ("corpus", '[{"doc_id": 0, "text": "a"},', "malformed JSON at line 1"),
        ("corpus", '{"doc_id": 0}', "expected a JSON list of objects, got dict"),
        ("corpus", '[{"doc_id": 0, "text": "a"}, 7]', "item 1 is int, expected an object"),
        ("corpus", '[{"doc_id": 0, "text": "a"}, {"doc_id": "0", "text": "b"}]', "item 1: duplicate doc_id '0'"),
        ("questions", '[{"id": "x", "question": "q", "gold_doc_ids": [0, 9]}]', r"gold doc ids \['9'\] are not in"),
        ("questions", '[{"id": "x", "question": "q", "gold_doc_ids": 0}]', "gold_doc_ids must be a list"),
        ("questions", '[{"id": "x", "question": "q", "gold_doc_ids": "[0"}]', "is not a JSON list"),
        ("questions", '[{"id": "x", "gold_doc_ids": [0]}]', "item 0: missing field 'question'"),
    ],
)
def test_load_multihop_malformed(tmp_path: Path, which: str, content: str, expected: str) -> None:
    paths = {"corpus": tmp_path / "c_corpus.json", "questions": tmp_path / "c_questions.json"}
    write_json(paths["corpus"], CORPUS)
    write_json(paths["questions"], QUESTIONS)
    paths[which].write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=expected) as err:
        load_multihop(paths["corpus"], paths["questions"])
    assert one_line(err).startswith(str(paths[which]))


def test_load_multihop_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"nope_corpus\.json: file not found"):
        load_multihop(tmp_path / "nope_corpus.json", tmp_path / "nope_questions.json")


def test_find_multihop_and_detect_layout(tmp_path: Path, beir: Path) -> None:
    hop = tmp_path / "multihop"
    hop.mkdir()
    for name in ("hotpotqa_dev500_corpus.json", "hotpotqa_dev500_questions.json", "2wikimultihopqa_dev500_corpus.json"):
        (hop / name).write_text("[]")
    assert find_multihop(hop, "hotpotqa") == (
        hop / "hotpotqa_dev500_corpus.json",
        hop / "hotpotqa_dev500_questions.json",
    )
    with pytest.raises(InputError, match=r"2wikimultihopqa_dev500_questions\.json: file not found"):
        find_multihop(hop, "2wiki")
    with pytest.raises(InputError, match="unknown multi-hop set 'musique'"):
        find_multihop(hop, "musique")

    assert detect_layout(beir) == "beir"
    assert detect_layout(beir / "corpus.jsonl") == "beir"
    assert detect_layout(hop) == "multihop"
    assert detect_layout(hop / "hotpotqa_dev500_corpus.json") == "multihop"
    with pytest.raises(InputError, match="not an evaluation set"):
        detect_layout(beir / "qrels")
    with pytest.raises(InputError, match="not an evaluation set"):
        detect_layout(hop / "hotpotqa_dev500_questions.json")
    with pytest.raises(InputError, match="not found"):
        detect_layout(tmp_path / "absent")


def test_subset() -> None:
    items = [f"q{i}" for i in range(10)]
    picked = subset(items, 4, seed=3)
    assert picked == [items[i] for i in sorted(random.Random(3).sample(range(10), 4))]
    assert picked == subset(items, 4, seed=3)  # deterministic
    assert picked == sorted(picked, key=items.index) and len(set(picked)) == 4  # original order, no repeats
    assert subset(items, 4, seed=4) != picked
    assert subset(items, None) == items and subset(items, 10) == items and subset(items, 99) == items
    assert subset(items, 0) == []
    with pytest.raises(InputError, match="0 or more"):
        subset(items, -1)


# --- LawBench 1-1 law articles ---------------------------------------------------------------------------------


def art(file: str, law: str, category: str, article: str, text: str) -> dict[str, object]:
    return {"id": f"{file}#{article}", "law": law, "part": None, "category": category, "file": file,
            "chapter": "第一章 总则", "article": article, "text": text}  # fmt: skip


LAW_RECORDS = [
    art("民法商法/公司法(2018).md", "中华人民共和国公司法", "民法商法", "第一条", "旧一。\n旧二。"),
    art("民法商法/公司法(2023).md", "中华人民共和国公司法", "民法商法", "第一条", "新文本，完全不同。"),
    art("民法商法/公司法(2018).md", "中华人民共和国公司法", "民法商法", "第二条", "同一。"),
    art("民法商法/公司法(2023).md", "中华人民共和国公司法", "民法商法", "第二条", "同一。"),
    art("社会法/慈善法.md", "中华人民共和国慈善法", "社会法", "第十条之一", "慈善。"),
    art("行政法/居民身份证法.md", "中华人民共和国居民身份证法", "行政法", "第三条", "行政版。"),
    art("宪法相关法/居民身份证法.md", "中华人民共和国居民身份证法", "宪法相关法", "第三条", "宪法版。"),
    art("宪法相关法/反分裂国家法.md", "反分裂国家法", "宪法相关法", "第一条", "反分裂。"),
    art("刑法/刑法.md", "中华人民共和国刑法", "刑法", "第一条", "刑法一。"),
    art("经济法/税法.md", "中华人民共和国税法", "经济法", "第一条", "税。"),
    art("经济法/预算法.md", "中华人民共和国预算法", "经济法", "第一条", "预算。"),
]
LAW_QUESTIONS = [
    ("民法商法公司法第一条的内容是什么？", "答案:旧一。,旧二。"),  # two versions: the answer picks 2018
    ("民法商法公司法第二条的内容是什么？", "答案:同一。"),  # identical in both: the version chosen above
    ("社会法慈善法第十条之一的内容是什么？", "答案:慈善。"),
    ("宪法相关法居民身份证法第三条的内容是什么？", "答案:宪法版。"),  # the category picks the file
    ("宪法相关法反分裂国家法第一条的内容是什么？", "答案:反分裂。"),  # a law named without 中华人民共和国
    ("民法商法中华人民共和国公司法第一条的内容是什么？", "答案:新文本，完全不同。"),  # full name accepted
    ("刑法第一条的内容是什么？", "答案:刑法一。"),  # no category prefix
    ("社会法刑法第一条的内容是什么？", "答案:刑法一。"),  # wrong category: the law is found elsewhere
    ("民法商法公司法第九十九条的内容是什么？", "答案:?"),  # no such article
    ("民法商法合伙企业法第一条的内容是什么？", "答案:?"),  # no such law
    ("公司法第一条说了什么？", "答案:?"),  # not the LawBench 1-1 form
]


@pytest.fixture
def law_files(tmp_path: Path) -> tuple[Path, Path]:
    articles = write_jsonl(tmp_path / "law_articles.jsonl", LAW_RECORDS)
    instruction = "回答以下问题，只需直接给出法条内容:"
    questions = [{"instruction": instruction, "question": q, "answer": a} for q, a in LAW_QUESTIONS]
    return articles, write_json(tmp_path / "1-1.json", questions)


def test_load_law_articles(law_files: tuple[Path, Path], tmp_path: Path) -> None:
    articles = load_law_articles(law_files[0])
    assert len(articles) == len(LAW_RECORDS)
    assert articles[0] == LawArticle(
        "民法商法/公司法(2018).md#第一条",
        "中华人民共和国公司法",
        "民法商法",
        "民法商法/公司法(2018).md",
        "第一条",
        "旧一。\n旧二。",
    )
    assert articles[0].short_law == "公司法" and articles[7].short_law == "反分裂国家法"
    bad = write_jsonl(tmp_path / "bad.jsonl", [{k: v for k, v in LAW_RECORDS[0].items() if k != "law"}])
    with pytest.raises(InputError, match=r"bad\.jsonl:1: missing field 'law'"):
        load_law_articles(bad)
    with pytest.raises(InputError, match=r"absent\.jsonl: file not found"):
        load_law_articles(tmp_path / "absent.jsonl")


def test_resolve_lawbench_questions(law_files: tuple[Path, Path]) -> None:
    result = resolve_lawbench_questions(law_files[1], load_law_articles(law_files[0]))
    got = {q: a.id for q, a in result.resolved}
    assert [q for q, _ in result.resolved] == [q for q, _ in LAW_QUESTIONS[:8]]  # file order kept
    assert got == {
        LAW_QUESTIONS[0][0]: "民法商法/公司法(2018).md#第一条",
        LAW_QUESTIONS[1][0]: "民法商法/公司法(2018).md#第二条",
        LAW_QUESTIONS[2][0]: "社会法/慈善法.md#第十条之一",
        LAW_QUESTIONS[3][0]: "宪法相关法/居民身份证法.md#第三条",
        LAW_QUESTIONS[4][0]: "宪法相关法/反分裂国家法.md#第一条",
        LAW_QUESTIONS[5][0]: "民法商法/公司法(2023).md#第一条",
        LAW_QUESTIONS[6][0]: "刑法/刑法.md#第一条",
        LAW_QUESTIONS[7][0]: "刑法/刑法.md#第一条",
    }
    assert result.unresolved == [q for q, _ in LAW_QUESTIONS[8:]]
    assert result.ambiguous == [LAW_QUESTIONS[i][0] for i in (0, 1, 5)]


def test_resolve_lawbench_questions_malformed(law_files: tuple[Path, Path]) -> None:
    law_files[1].write_text('[{"answer": "答案:x"}]', encoding="utf-8")
    with pytest.raises(InputError, match=r"1-1\.json: item 0: missing field 'question'"):
        resolve_lawbench_questions(law_files[1], [])
    law_files[1].write_text('{"question": "x"}', encoding="utf-8")
    with pytest.raises(InputError, match=r"1-1\.json: expected a JSON list"):
        resolve_lawbench_questions(law_files[1], [])


def test_choose_law_files(law_files: tuple[Path, Path]) -> None:
    articles = load_law_articles(law_files[0])
    resolved = resolve_lawbench_questions(law_files[1], articles).resolved[:3]  # 公司法(2018), 慈善法
    named = ["民法商法/公司法(2018).md", "社会法/慈善法.md"]
    chosen = choose_law_files(resolved, articles, seed=1)
    assert chosen == sorted(chosen) and set(named) < set(chosen) and len(chosen) == 4
    assert "民法商法/公司法(2023).md" not in chosen  # another version of a named law is no distractor
    assert chosen == choose_law_files(resolved, articles, seed=1)
    assert {tuple(choose_law_files(resolved, articles, seed=s)) for s in range(20)} != {tuple(chosen)}
    assert choose_law_files(resolved, articles, extra_ratio=0) == named
    assert choose_law_files(resolved, articles, extra_ratio=0.5) != named  # ceil: at least one extra
    everything = {a.file for a in articles} - {"民法商法/公司法(2023).md"}
    assert set(choose_law_files(resolved, articles, extra_ratio=10)) == everything
    with pytest.raises(ValueError, match="extra_ratio"):
        choose_law_files(resolved, articles, extra_ratio=-1)


# --- the real sets in ../shared/data ---------------------------------------------------------------------------


def test_real_vaswani(shared_data: Path) -> None:
    folder = shared_data / "retrieval" / "vaswani_npl"
    assert detect_layout(folder) == "beir"
    data = load_beir(folder)
    assert data.name == "vaswani_npl"
    assert len(data.docs) == 11_429 and len(data.queries) == 93
    assert sum(len(q.relevant) for q in data.queries) == 2_083
    ids = {d.doc_id for d in data.docs}
    assert all(doc in ids for q in data.queries for doc in q.relevant)


@pytest.mark.parametrize(("which", "n_docs"), [("hotpotqa", 4_948), ("2wiki", 3_301)])
def test_real_multihop(shared_data: Path, which: str, n_docs: int) -> None:
    folder = shared_data / "multihop"
    assert detect_layout(folder) == "multihop"
    data = load_multihop(*find_multihop(folder, which))
    assert len(data.docs) == n_docs and len(data.queries) == 500
    assert all(len(q.relevant) >= 2 for q in data.queries)  # multi-hop: at least two gold paragraphs
    if which == "hotpotqa":
        assert data.name == "hotpotqa_dev500"
        assert data.queries[0].relevant == {"4": 1, "7": 1}


@pytest.fixture(scope="module")
def real_articles(shared_data: Path) -> list[LawArticle]:
    return load_law_articles(shared_data / "legal_zh" / "law_articles.jsonl")


def test_real_law_questions(shared_data: Path, real_articles: list[LawArticle]) -> None:
    assert len(real_articles) == 24_886
    questions_json = shared_data / "legal_zh" / "lawbench" / "1-1.json"
    result = resolve_lawbench_questions(questions_json, real_articles)
    # all 250 resolve; 24 name a law present in two versions (公司法, 慈善法, 未成年人保护法), settled by the answer
    assert len(result.resolved) == 250 and result.unresolved == []
    assert len(result.ambiguous) == 24
    files = {a.file for q, a in result.resolved if "公司法" in q or "慈善法" in q}
    assert files == {"民法商法/公司法(2018-10-26).md", "社会法/慈善法(2016-03-16).md"}  # LawBench predates 2023
    # the answer is the article's paragraphs joined with ","
    answers = {r["question"]: r["answer"] for r in json.loads(questions_json.read_text(encoding="utf-8"))}
    for question, article in result.resolved:
        assert answers[question].removeprefix("答案:")[:30] == article.text.replace("\n", ",")[:30], question
    chosen = choose_law_files(result.resolved, real_articles)
    named = {a.file for _, a in result.resolved}
    assert len(named) == 32 and len(chosen) == 64 and named < set(chosen)
    assert chosen == choose_law_files(result.resolved, real_articles)
