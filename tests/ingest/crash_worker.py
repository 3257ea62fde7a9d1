"""Ingest a folder slowly, so that a test can kill the process mid-run: ``python crash_worker.py KB FOLDER [DELAY]``.

The encoder is a HashEncoder that sleeps ``DELAY`` seconds (default 0.05) per ``encode`` and per ``encode_tokens``
call, and vectors are committed two chunks at a time, so a folder of a hundred chunks takes a few seconds and the
KB passes through every stage (parsed, some early vectors, all early vectors, some late vectors) slowly enough to
be observed and killed at each. Prints the final counts as JSON and exits 0 when the run finishes.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

# Run as a script from anywhere: make the repository's package importable even without an installed checkout.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402
from tests.support.crash_ingest import OPTIONS  # noqa: E402 - the in-process resume in the test uses the same options
from tests.support.encoders import SlowEncoder  # noqa: E402

DEFAULT_DELAY = 0.05


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
