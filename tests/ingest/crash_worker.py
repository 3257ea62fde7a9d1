"""Ingest a folder slowly, so that a test can kill the process mid-run: ``python crash_worker.py KB FOLDER [DELAY]``.

The encoder is a HashEncoder that sleeps ``DELAY`` seconds (default 0.05) per ``encode`` and per ``encode_tokens``
call, and vectors are committed two chunks at a time, so a folder of a hundred chunks takes a few seconds and the
KB passes through every stage (parsed, some early vectors, all early vectors, some late vectors) slowly enough to
be observed and killed at each. Prints the final counts as JSON and exits 0 when the run finishes.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

# Run as a script from anywhere: make the repository's package importable even without an installed checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.embed.base import EncodeRole, TokenVectors  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.support.crash_ingest import OPTIONS  # noqa: E402 - the in-process resume in the test uses the same options

DEFAULT_DELAY = 0.05


class SlowEncoder(HashEncoder):
    """Same vectors and model id as HashEncoder; every top-level call sleeps first."""

    def __init__(self, delay: float = DEFAULT_DELAY) -> None:
        super().__init__()
        self.delay = delay
        self._nested = False

    def encode(self, texts: Sequence[str], *, role: EncodeRole):  # type: ignore[no-untyped-def]
        time.sleep(self.delay)
        self._nested = True  # HashEncoder.encode calls encode_tokens: sleep once per call, not per text
        try:
            return super().encode(texts, role=role)
        finally:
            self._nested = False

    def encode_tokens(self, text: str) -> TokenVectors:
        if not self._nested:
            time.sleep(self.delay)
        return super().encode_tokens(text)


def main(argv: Sequence[str]) -> int:
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    kb, folder = Path(argv[1]), Path(argv[2])
    encoder = SlowEncoder(float(argv[3]) if len(argv) == 4 else DEFAULT_DELAY)
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim) as store:
        report = Ingestor(store, encoder, OPTIONS).ingest_paths([folder])
        print(json.dumps(store.counts()), flush=True)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
