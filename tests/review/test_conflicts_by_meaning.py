"""A statement counts against a row's answer only when it is about as near the item, by meaning, as the answer's
own quote (``review/runner.near_as``): the rule with scripted similarities, then the real encoder on the sentences
it was chosen on (three true conflicts kept, three false ones dropped)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from pikelocal.domain.review import ChecklistScript, Located, Value
from pikelocal.embed.base import Encoder
from pikelocal.embed.fake import HashEncoder
from pikelocal.query.verify.about import Meaning
from pikelocal.review.checklist import load_checklist
from pikelocal.review.conflicts import Statement
from pikelocal.review.runner import CONFLICT_MARGIN, near_as

HERE = Located(1, "doc", 1, 1, 1)


def stated(sentence: str, value: str = "1") -> Statement:
    return Statement(Value("count", value, value), sentence, HERE, 0)


@dataclass
class ScriptedMeaning(Meaning):
    """Each text's similarity to the item given by the test."""

    table: dict[str, float] = field(default_factory=dict)

    def similarities(self, texts: Sequence[str]) -> list[float]:
        return [self.table[t] for t in texts]


def test_a_statement_far_below_the_answer_s_quote_does_not_count_and_a_near_one_does() -> None:
    near, far = stated("near", "2"), stated("far", "3")
    meaning = ScriptedMeaning(
        HashEncoder(), "q", table={"answer": 0.60, "near": 0.60 - CONFLICT_MARGIN + 0.01, "far": 0.60 - 0.2}
    )
    assert near_as([near, far], ["answer"], meaning) == [near]


def test_the_nearest_of_several_quotes_sets_the_bar_and_without_an_encoder_every_statement_counts() -> None:
    one = stated("one")
    meaning = ScriptedMeaning(HashEncoder(), "q", table={"weak quote": 0.2, "strong quote": 0.7, "one": 0.55})
    assert near_as([one], ["weak quote", "strong quote"], meaning) == []
    assert near_as([one], ["weak quote", "strong quote"], None) == [one]
    assert near_as([one], [], meaning) == [one]  # no quote to measure against: nothing is judged


def meaning_of(encoder: Encoder, checklist: str, item_id: str, script: ChecklistScript) -> Meaning:
    item = next(i for i in load_checklist(checklist).items if i.id == item_id)
    return Meaning(encoder, item.questions[script], (item.label, *item.hints))


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    from pikelocal.config import load_settings
    from pikelocal.embed.factory import open_encoder

    return open_encoder(load_settings(environ={}))


# (checklist, item, script, the answer's quote, a statement of another value, whether it is a true conflict); the
# sentences as the documents print them (tests/data/review: the shared tender, the long supply agreement, the
# switchgear tender, the Taiwanese contract)
CASES = [
    ("tender-zh", "price_weight", "hans", "（1）投标报价： 26.25 分；", "（1） 投标报价 （0～25分）", True),
    (
        "contract-en", "warranty_duration", "en",
        'The warranty period is 24 months after installation of the relevant Pump (the "Warranty Period").',
        "| 9 | Warranty | The warranty period for each Pump is 36 months from the date of Acceptance |", True,
    ),
    (
        "contract-en", "expiration_date", "en",
        "This Agreement commences on the Commencement Date and, unless terminated earlier, continues for an initial"
        ' term of 36 months ending on 28 February 2030 (the "Initial Term").',
        "| 4 | Initial Term | 24 months from the Commencement Date; the Initial Term expires on 28 February 2029 |",
        True,
    ),
    (
        "tender-zh", "copies", "hans", "（2）投标文件正本一份，副本份数见投标人须知前附表。",
        "6.4.1 如合同设备在考核中达到或视为达到技术性能考核指标，则买卖双方应在考 核完成后7 日内或专用合同"
        "条款另行约定的时间内签署合同设备验收证书一式二份， 双方各持一份。", False,
    ),
    (
        "tender-zh", "damages_cap", "hans",
        "在计算迟延交付违约金时，迟交不足一周的按一周计算。迟延交付违约金的总额不 得超过合同价格的 10%",
        "履约保证金的金额：按合同总价的5%", False,
    ),
    (
        "tender-zh", "bid_validity", "hant",
        "投標文件有效期至少自投標時起至開標後 50 日止。如本機關無法於 前開有效期內決標，"
        "必要時得洽請廠商延長投標文件之有效期",
        "依營造業法第 51 條第 1 項複評為優良營造業之廠商，並檢附 有效期間內（自複評單位公告之日起 3 年內）"
        "複評單位頒發之", False,
    ),
]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(("checklist", "item_id", "script", "quote", "other", "conflict"), CASES)
def test_the_real_encoder_keeps_true_conflicts_and_drops_statements_of_another_thing(
    encoder: Encoder, checklist: str, item_id: str, script: ChecklistScript, quote: str, other: str, conflict: bool
) -> None:
    meaning = meaning_of(encoder, checklist, item_id, script)
    kept = near_as([stated(other, "2")], [quote], meaning)
    assert bool(kept) is conflict, meaning.similarities([quote, other])
