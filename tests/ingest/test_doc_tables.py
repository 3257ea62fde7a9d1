"""Tables kept in the KB (``doc_tables``): found in an ingested document's text, with pages, gone with it."""

from __future__ import annotations

from pathlib import Path

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store

SCORING = """# 第三章 评标办法

评标委员会按下表评分。

| 评分项 | 分值 | 评分标准 |
|---|---|---|
| 技术方案 | 40 | 方案完整、可行，得 30–40 分 |
| 项目业绩 | 20 | 每个类似业绩得 5 分，最多 20 分 |
| 报价 | 30 | 满足招标文件要求且最低的投标报价为基准价 |
| 服务承诺 | 10 | 承诺全面、措施具体，得 6–10 分 |

# 第四章 合同条款

合同价款为固定总价。
"""


def test_an_ingested_table_is_recorded_with_its_span_shape_and_page_and_goes_with_its_document(
    tmp_path: Path,
) -> None:
    path = tmp_path / "评标办法.md"
    path.write_text(SCORING, encoding="utf-8")
    enc = HashEncoder()
    with Store.open(tmp_path / "kb.kb", encoder_id=enc.model_id, dim=enc.dim) as store:
        opts = IngestOptions.from_settings(Settings(), split=SplitOptions(target=60, min_tokens=20, max_tokens=120))
        (outcome,) = Ingestor(store, enc, opts, lambda _e: None).ingest_paths([path]).outcomes
        assert outcome.status == "ingested" and outcome.doc_id is not None
        (table,) = store.docs.tables_of(outcome.doc_id)
        text = "".join(c.text for c in store.chunks.chunks_of(outcome.doc_id))
        assert text[table.char_start : table.char_end].splitlines()[0] == "| 评分项 | 分值 | 评分标准 |"
        assert text[table.char_start : table.char_end].splitlines()[-1].startswith("| 服务承诺 | 10 |")
        assert (table.n_rows, table.n_cols, table.page_start, table.page_end) == (4, 3, 1, 1)
        assert table.header == "| 评分项 | 分值 | 评分标准 |\n|---|---|---|"
        # every row lies whole in one chunk
        for row in text[table.char_start : table.char_end].splitlines():
            assert sum(row in c.text.splitlines() for c in store.chunks.chunks_of(outcome.doc_id)) == 1
        assert store.docs.delete_document(outcome.doc_id)
        assert store.docs.tables_of(outcome.doc_id) == []
        assert store.integrity_check() == []
