"""The small search corpus (four Markdown files and a two-page PDF) shared by search, answer and TUI tests."""

from __future__ import annotations

from collections.abc import Sequence

from pikelocal.config import Settings
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store

ENC = HashEncoder()
OPTIONS = IngestOptions.from_settings(
    Settings(), split=SplitOptions(target=40, min_tokens=10, max_tokens=60), late=True
)

# One topic per document; the topic words occur in no other document.
DOCS = {
    "bid_bond.md": (
        "# 投标保证金\n\n投标人应当在投标截止时间前提交投标保证金。投标保证金的金额为人民币五万元。\n\n"
        "投标保证金可以采用银行保函形式。未按要求提交投标保证金的投标将被否决。\n"
    ),
    "performance_bond.md": (
        "# 履约保证金\n\n中标人应当在签订合同前提交履约保证金。履约保证金为合同价款的百分之十。\n\n"
        "履约保证金在工程竣工验收后退还。\n"
    ),
    "termination.md": (
        "# Termination clause\n\nEither party may terminate this agreement by written notice. Termination takes"
        " effect thirty days after the notice.\n\nUpon termination the supplier shall return all confidential"
        " materials.\n"
    ),
    "delivery.md": (
        "# Delivery schedule\n\nThe supplier shall deliver the goods according to the delivery schedule. Each"
        " delivery is inspected on arrival.\n\nLate delivery incurs liquidated damages per day of delay.\n"
    ),
}
PDF_PAGES = (
    (
        "Warranty terms apply to every delivered item.",
        "The seller warrants that the goods are free from defects in material and workmanship for twelve months.",
        "A claim under this warranty must be made in writing within the warranty period.",
    ),
    (
        "Force majeure events excuse a delay in performance.",
        "Such events include flood, fire, war and strikes beyond the control of the parties.",
        "The affected party shall notify the other party promptly.",
    ),
)


def make_pdf(pages: Sequence[Sequence[str]]) -> bytes:
    """A minimal valid PDF (Helvetica, one text line per entry) with one page per item of ``pages``."""
    n = len(pages)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{4 + 2 * i} 0 R' for i in range(n))}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, lines in enumerate(pages):
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        ops += [f"({line}) Tj T*" for line in lines]
        stream = "\n".join([*ops, "ET"]).encode("latin-1")
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >>"
            b" /Contents %d 0 R >>" % (5 + 2 * i)
        )
        objs.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, obj in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    return bytes(out)


def add_stand_in_questions(store: Store) -> None:
    """Atomic questions without an LLM: each chunk's first two non-blank lines, so the question path has rows."""
    for doc in store.docs.documents():
        for c in store.chunks.chunks_of(doc.id):
            lines = [line.strip() for line in c.text.splitlines() if line.strip()][:2]
            store.enrichment.save_atoms(c.id, status="done", questions=lines, vectors=ENC.encode(lines, role="query"))


# Stand-in entities for the graph mode: these names wherever a chunk's text holds them (case folded).
ENTITY_NAMES = (
    "投标保证金", "履约保证金", "银行保函", "合同价款", "termination", "notice", "supplier", "confidential materials",
    "delivery schedule", "liquidated damages", "goods", "warranty", "seller", "force majeure", "flood", "fire",
)  # fmt: skip


def add_stand_in_entities(store: Store) -> None:
    """An entity graph without an LLM: each chunk's names from ``ENTITY_NAMES``, and a triple linking its first two."""
    for doc in store.docs.documents():
        for c in store.chunks.chunks_of(doc.id):
            names = [n for n in ENTITY_NAMES if n in c.text.casefold()]
            triples = [(names[0], "appears with", names[1])] if len(names) > 1 else []
            with store.transaction():
                store.graph.put_chunk(c.id, names, triples, ENC.encode(names, role="query") if names else None)
