"""A bid against its tender on a real KB (slow): the composed pair of tests/data/review/against ingested with the
real default encoder (EmbeddingGemma), checked as a user runs it. The rows asserted are hand-known: what the bid
was written to omit, to offer short, or to offer beyond a minimum (gold.jsonl, README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from tests.support.paths import installed_model

pytestmark = pytest.mark.slow
PAIR = Path(__file__).parents[1] / "data" / "review" / "against"
TENDER = "tender-hospital-equipment.md"
BID = "bid-hospital-equipment.md"


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> list[api.BidCheck]:
    installed_model("embeddinggemma-300m/model.onnx")
    path = tmp_path_factory.mktemp("against-real") / "kb.sqlite"
    with api.open_kb(path, api.load_settings(environ={})) as knowledge_base:
        assert knowledge_base.add([PAIR / TENDER, PAIR / BID]).ingest.count("ingested") == 2
        return knowledge_base.against(TENDER, BID)


def row(checks: list[api.BidCheck], phrase: str) -> api.BidCheck:
    [found] = [c for c in checks if phrase in c.requirement.clause.text]
    return found


def test_an_omitted_certificate_is_not_found(checks: list[api.BidCheck]) -> None:
    assert row(checks, "ISO9001").state == "not_found"
    # the bid's 「产品合格证及出厂检验报告」 is near the required 原厂授权书 too; it answers the 合格证 requirement
    authorisation = row(checks, "原厂授权书")
    assert authorisation.state == "not_found" and authorisation.answer is None
    certificate = row(checks, "产品合格证及出厂检验报告")
    assert certificate.state == "met" and certificate.answer is not None
    assert certificate.answer.text == "设备到货时，我方随货提供产品合格证及出厂检验报告。"


def test_a_short_validity_differs_with_both_quotes(checks: list[api.BidCheck]) -> None:
    validity = row(checks, "不少于90日历天")  # no binding word: the bound binds
    assert validity.state == "differs" and validity.answer is not None
    assert validity.answer.text == "本投标文件的投标有效期为自投标截止之日起60日历天。"
    assert validity.answer.where.title == "市第一人民医院医疗设备及信息化系统采购项目投标文件"
    assert validity.answer.where.line_start == 13  # grep -n in the bid
    assert validity.requirement.clause.where.line_start == 39  # grep -n in the tender
    assert [(f.required.normal, f.bound, f.offered and f.offered.normal) for f in validity.figures] == [
        ("90 days", "min", "60 days")
    ]


def test_a_longer_warranty_than_the_minimum_is_met(checks: list[api.BidCheck]) -> None:
    warranty = row(checks, "质保期须不少于3年")
    assert warranty.state == "met" and warranty.answer is not None
    assert "所有设备质保期为5年" in warranty.answer.text and warranty.answer.in_table


def test_a_consortium_refusal_is_answered_by_its_own_sentence(checks: list[api.BidCheck]) -> None:
    consortium = row(checks, "联合体形式")
    assert consortium.state == "met" and consortium.answer is not None
    assert consortium.answer.text == "我方以独立法人身份参加投标，不组成联合体。"


def test_the_purchasers_duties_are_no_rows(checks: list[api.BidCheck]) -> None:
    assert not [c for c in checks if c.requirement.clause.text.startswith(("采购人应", "评标委员会应当"))]
