"""Sentences stating how the bid is handed in: 「供应商须派代表当面递交纸质版响应文件」,
「所有征询响应文件通过专人递交」, 「由投标供应商法定代表人或授权代表现场提交投标文件」,
「将加密响应文件上传至云平台项目采购系统」, 「以郵遞或專人送達」.

The ways are a closed list (by hand: 当面, 现场, 专人, 亲自; by post: 邮寄, 郵遞; online: 上传, 网上, 在线, an
electronic system or platform), so the sentence is one naming a way of handing in and the bid (投标文件, 响应文件,
报价文件, 建議書 …). The model, shown such a sentence, answered 「2023年10月15日」 or said not stated (中邮人寿).
Left out: a way refused (「不接受邮寄」), a condition (如/若), a sentence about another paper (a complaint, the
contract, a clarification, the bond, the signatures, the envelopes), a table or a list run together (longer than
``LONGEST``), and one that only points elsewhere (「详见…」).
"""

from __future__ import annotations

import re

from pikelocal.text.sentences import POINTS_ELSEWHERE

# A way of handing the bid in, with the verb of handing it in.
_WAY = re.compile(
    r"(?:当面|現場|现场|专人|專人|亲自|親自|派代表|派員)[^，,。；;]{0,8}?(?:递交|遞交|提交|送达|送達|送交|交至|送至)"
    r"|(?:邮寄|郵寄|郵遞|邮递|快递|快遞)"
    r"|(?:上传|上傳|网上提交|網上提交|在线提交|線上提交|在线递交|线上投标|線上投標|(?:电子投标|電子投標)(?!文件|保函))"
    r"|(?:系统|系統|平台)[^，,。；;]{0,12}?(?:递交|遞交|提交|上传|上傳)"
)
_REFUSED = re.compile(
    r"(?:不接受|不予接受|不接收|不收|不得|不允许|不允許|拒绝|拒絕|不采用|不採用|不可|逾期|逾時|未)[^，,。；;]{0,6}$"
)
# a way refused after it: 「电报、电话、电传、邮寄等形式的报价文件概不接收」, 「逾期上传的投标文件恕不接受」
_REFUSED_AFTER = re.compile(r"[^，,。；;]{0,16}?(?:概不|恕不|不予|不接受|不接收|将被拒绝|將被拒絕|无效|無效)")
_BID = re.compile(
    r"投标文件|投標文件|响应文件|響應文件|报价文件|報價文件|应答文件|應答文件|申请文件|建议书|建議書|企劃書|企划书"
    r"|标书|標書|投标|投標"
)
_LEFT_OUT = re.compile(
    r"如|若|质疑|質疑|投诉|投訴|异议|異議|合同|契約|澄清|保证金|保證金|押标金|押標金|保函|发票|發票|签字|簽字|盖章|蓋章"
    rf"|封装|封裝|处罚|處罰|罚款|罰款|详见|詳見|{POINTS_ELSEWHERE}"
)
LONGEST = 150  # characters: a longer "sentence" is a table or a list run together


def submission_way(sentence: str) -> str | None:
    """``sentence`` (one line) where it states how the bid is handed in, its spaces folded; else None."""
    if len(sentence) > LONGEST or _LEFT_OUT.search(sentence) or _BID.search(sentence) is None:
        return None
    for m in _WAY.finditer(sentence):
        refused = _REFUSED.search(sentence, max(0, m.start() - 12), m.start()) or _REFUSED_AFTER.match(
            sentence, m.end()
        )
        if refused is None:
            return " ".join(sentence.split())
    return None
