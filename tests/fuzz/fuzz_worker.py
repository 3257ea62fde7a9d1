"""Ingest the given files into KB with the hashing encoder and print one JSON line per file, then one summary line:
``python fuzz_worker.py KB FILE…``. Run as a child process so a test can kill it at a deadline (a hang) and read its
peak memory; an exception that escapes the pipeline is a crash and exits non-zero with its traceback on stderr."""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pikelocal import api  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402


def main(argv: list[str]) -> int:
    kb, files = Path(argv[1]), [Path(a) for a in argv[2:]]
    settings = api.load_settings(environ={}, overrides={"ingest.late": True})
    with api.open_kb(kb, settings, encoder=HashEncoder()) as knowledge_base:
        report = knowledge_base.add(files).ingest
    for o in report.outcomes:
        print(json.dumps({"path": o.path, "status": o.status, "reason": o.reason, "message": o.message}))
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"summary": True, "rss_mb": rss_mb}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
