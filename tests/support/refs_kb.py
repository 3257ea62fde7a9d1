"""A small legal corpus for the cross-reference tests: a regulation with numbered articles, a tender paragraph that
cites it (and a law not in the KB, and an article of its own), an Act with numbered sections and a judgment citing
it; ingested with the fake encoder."""

from __future__ import annotations

from pikelocal.ingest.pipeline import Ingestor, SourceText
from pikelocal.store.store import Store
from tests.support.search_corpus import ENC, OPTIONS

REGULATION = SourceText(
    "laws/招标投标法实施条例.md",
    "中华人民共和国招标投标法实施条例",
    "第一条 为了规范招标投标活动，根据《中华人民共和国招标投标法》，制定本条例。\n\n"
    "第二条 招标投标法第三条所称工程建设项目，是指工程以及与工程建设有关的货物、服务。\n\n"
    "第三条 依法必须进行招标的工程建设项目的具体范围和规模标准，由国务院发展改革部门会同国务院有关部门制订。\n\n"
    "第四条 国务院发展改革部门指导和协调全国招标投标工作，对国家重大建设项目的工程招标投标活动实施监督检查。"
    "财政部门依法对实行招标投标的政府采购工程建设项目的预算执行情况和政府采购政策执行情况实施监督。"
    "监察机关依法对与招标投标活动有关的监察对象实施监察。\n\n"
    "第五条 设区的市级以上地方人民政府可以根据实际需要，建立统一规范的招标投标交易场所。"
    "依照本条例第二条的规定，交易场所不得与行政监督部门存在隶属关系。\n",
)
TENDER_TEXT = SourceText(
    "tender/招标文件.txt",
    "勘察设计招标文件",
    "投标人须知\n\n黄梅县团洲圩治理工程属政府采购工程，依法不进行招标的，根据《中华人民共和国招标投标法实施条例》第四条第三款的规定，"
    "财政部门依法对实行招标投标的政府采购工程建设项目的政府采购政策执行情况实施监督。\n\n"
    "本项目另适用《建筑法》的有关规定，并依照本法第九条办理。\n",
)
ACT = SourceText(
    "laws/contracts-review-act.txt",
    "Contracts Review Act 1980 (NSW)",
    "1 Name of Act\nThis Act may be cited as the Contracts Review Act 1980.\n\n"
    "6 Application of Act\n(1) The Crown may not be granted relief under this Act.\n\n"
    "7 Principal relief\n(1) Where the Court finds a contract or a provision of a contract to have been unjust in"
    " the circumstances relating to the contract at the time it was made, the Court may refuse to enforce it.\n",
)
JUDGMENT = SourceText(
    "cases/judgment.txt",
    "Smith v Jones",
    "The plaintiff sought relief under section 7 of the Contracts Review Act 1980 (NSW) and relied on s 6(1).\n",
)


def ingest(store: Store, *items: SourceText) -> None:
    Ingestor(store, ENC, OPTIONS).ingest_texts(list(items))
