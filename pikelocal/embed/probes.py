"""Probe texts whose vectors fingerprint an encoder's numbers, and the comparison of two fingerprints.

A KB stores the probe vectors of the encoder that built it (``kb_meta.encoder_probes``). Opening the KB with
an encoder whose probe vectors differ (an int8 build whose kernels saturate on this CPU, another quantization,
a perturbed file) would search stored vectors with query vectors from another numeric world and silently lose
recall, so the KB refuses it (see ``pikelocal.store.probe_check``).

The probes cover what the KB stores: query and passage sentence vectors in Chinese and English, and late
(span-pooled) vectors of one longer passage, which is where saturation showed first (64-token span cosine 0.89
against PyTorch on an AVX2 CPU without VNNI).

This module needs only numpy: the build-only export environment imports it to write the committed reference
vectors from the float32 PyTorch model (``tests/data/embeddinggemma_probes_fp32.json``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

PROBE_VERSION = 1
MIN_PROBE_COSINE = 0.995  # below this, two encoders are in different numeric worlds

SENTENCE_PROBES: tuple[tuple[Literal["query", "passage"], str], ...] = (
    ("query", "投标保证金的金额是多少？"),
    ("query", "What is the deadline for submitting the tender?"),
    ("query", "合同約定的履約保證金比例為何？"),
    ("passage", "投标人应在投标截止时间前提交投标保证金人民币伍万元整，以银行保函或转账方式缴纳。"),
    ("passage", "The Supplier shall deliver the goods within thirty (30) days of the purchase order."),
    ("passage", "第十二条 当事人一方不履行合同义务的，应当承担继续履行、采取补救措施或者赔偿损失等违约责任。"),
    ("passage", "Section 54(1) of the Insurance Contracts Act 1984 limits the insurer's right to refuse a claim."),
)
# One passage for late (span-pooled) vectors; spans are its sentences, pooled from one encode_tokens pass.
LATE_PROBE = (
    "招标公告。本项目为某市政府办公设备采购项目，采购预算为人民币三百五十万元。"
    "投标人须具有独立法人资格，并提供近三年经审计的财务报告。"
    "The evaluation committee scores each bid on price (30 points), technical merit (50 points) and service "
    "(20 points). Bids received after the deadline of 9:30 on 15 March will be rejected without being opened. "
    "中标人应在收到中标通知书后三十日内签订合同，并按合同金额的百分之十提交履约保证金。"
    "Payment is made in three instalments: 30% on signature, 60% on delivery and 10% after acceptance."
)


def late_spans(text: str = LATE_PROBE) -> list[tuple[int, int]]:
    """Character spans of the late probe's sentences (ends at 。 or '. ')."""
    spans, start = [], 0
    for i, ch in enumerate(text):
        if ch == "。" or (ch == "." and (i + 1 == len(text) or text[i + 1] == " ")):
            spans.append((start, i + 1))
            start = i + 1
            while start < len(text) and text[start] == " ":
                start += 1
    if start < len(text):
        spans.append((start, len(text)))
    return spans


class ProbeEncoder(Protocol):
    """What probing needs of an encoder (``pikelocal.embed.base.Encoder`` has it)."""

    model_id: str
    dim: int

    def encode(self, texts: Sequence[str], *, role: Literal["query", "passage"]) -> NDArray[np.float32]: ...

    def encode_tokens(self, text: str) -> Any: ...


def probe_vectors(encoder: ProbeEncoder) -> NDArray[np.float32]:
    """The encoder's probe vectors: the sentence probes in order, then one late vector per late-probe span."""
    from pikelocal.embed.late import pool_span

    rows = []
    for role, text in SENTENCE_PROBES:
        rows.append(np.asarray(encoder.encode([text], role=role), dtype=np.float32)[0])
    tv = encoder.encode_tokens(LATE_PROBE)
    rows += [pool_span(tv, s, e) for s, e in late_spans()]
    return np.stack(rows).astype(np.float32)


def rowwise_cosine(a: NDArray[np.floating], b: NDArray[np.floating]) -> NDArray[np.float64]:
    """Cosine of each row of ``a`` with the same row of ``b`` (a zero row gives 0)."""
    a64, b64 = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    na, nb = np.linalg.norm(a64, axis=1), np.linalg.norm(b64, axis=1)
    denom = np.where((na > 0) & (nb > 0), na * nb, 1.0)
    return np.asarray((a64 * b64).sum(axis=1) / denom, dtype=np.float64)


def probe_agreement(stored: NDArray[np.floating], current: NDArray[np.floating]) -> float:
    """The smallest cosine between matching probe vectors; 0.0 when their shapes differ."""
    if np.shape(stored) != np.shape(current):
        return 0.0
    return float(rowwise_cosine(stored, current).min())
