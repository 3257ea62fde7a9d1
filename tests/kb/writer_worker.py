"""Add a folder to a KB through the facade: ``python writer_worker.py KB FOLDER DELAY NOTICES``.

A SlowEncoder (the HashEncoder's vectors, ``DELAY`` seconds per call) embeds. Every notice is appended to the file
NOTICES the moment it is reported (so a test can see a writer waiting), and one JSON line is printed at the end:
the outcome of each file, the units embedded per stage, and the notices.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal import api  # noqa: E402
from pikelocal.domain import Event, Notice  # noqa: E402
from tests.support.encoders import SlowEncoder  # noqa: E402


def main(argv: list[str]) -> int:
    kb, folder = Path(argv[1]), Path(argv[2])
    notices: list[str] = []

    def sink(event: Event) -> None:
        if isinstance(event, Notice):
            notices.append(event.message)
            with Path(argv[4]).open("a", encoding="utf-8") as fh:
                fh.write(event.message + "\n")

    encoder = SlowEncoder(float(argv[3]))
    with api.open_kb(kb, api.load_settings(environ={}), encoder=encoder) as knowledge_base:
        report = knowledge_base.add([folder], api.AddRequest(), sink).ingest
    out = {"statuses": sorted(o.status for o in report.outcomes), "units": report.units, "notices": notices}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
