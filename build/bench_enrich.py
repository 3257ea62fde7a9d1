"""Enrichment benchmark (issue 4): the default LLM over the Chinese tender PDF, and HTTP fan-out against a stand-in.

Part 1 ingests the tender PDF into a fresh KB (default encoder, no late vectors) and enriches its first ``--chunks``
chunks with the in-process default model: chunks per minute, tokens per chunk, our wall time against the model's
own time for the same calls (llama-cpp-python's ``create_chat_completion``, timed inside the backend), and the
questions' language and key-term overlap with their chunks. Part 2 enriches the same chunks through the
OpenAI-compatible client against a loopback server with a fixed latency, with 1 and with N parallel requests.
Writes its section into docs/BENCHMARKS.md between markers.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import load_settings  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.atoms import check_atoms  # noqa: E402
from pikelocal.ingest.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.library import ingest_options, open_cached_llm  # noqa: E402
from pikelocal.llm.openai_compat import OpenAICompatLLM  # noqa: E402
from pikelocal.store.store import Store  # noqa: E402

BEGIN, END = "<!-- bench_enrich:begin -->", "<!-- bench_enrich:end -->"
PDF = next((ROOT.parent / "shared" / "data" / "pdfs" / "zh_tender").glob("*.pdf"), None)


class _FixedLatency(BaseHTTPRequestHandler):
    """Answers every chat completion after ``latency`` seconds with a valid atomizing reply."""

    latency = 0.5
    in_flight = 0
    peak = 0
    lock = threading.Lock()

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            type(self).in_flight += 1
            type(self).peak = max(type(self).peak, type(self).in_flight)
        time.sleep(self.latency)
        with self.lock:
            type(self).in_flight -= 1
        n = sum(len(m["content"]) for m in body["messages"])
        reply = {"summary": "示例摘要。", "questions": [f"黄梅县团洲圩治理工程招标文件第{n}段规定了什么？"]}
        out = json.dumps({
            "choices": [{"message": {"role": "assistant", "content": json.dumps(reply, ensure_ascii=False)},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": n, "completion_tokens": 20},
        }).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: object) -> None:
        pass


def http_fanout(kb: Path, chunks: int, parallel: int) -> float:
    """Seconds to enrich ``chunks`` chunks of a fresh copy of the tender KB through the stand-in server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FixedLatency)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    enc = HashEncoder()
    path = kb.with_name(f"http-{parallel}.kb")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Store.open(path, encoder_id=enc.model_id, dim=enc.dim) as store:
        Ingestor(store, enc, ingest_options(load_settings(), late=False)).ingest_paths([PDF])
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        llm = OpenAICompatLLM(url, "stand-in", max_parallel=parallel)
        t0 = time.perf_counter()
        Enricher(store, enc, llm, EnrichOptions(summaries=False, limit=chunks)).run()
        seconds = time.perf_counter() - t0
    server.shutdown()
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    parser.add_argument("--kb", type=Path, default=ROOT / "build" / "bench-enrich.kb")
    parser.add_argument("--chunks", type=int, default=24, help="chunks to enrich with the real model")
    parser.add_argument("--parallel", type=int, default=4)
    args = parser.parse_args()
    if PDF is None:
        print("the tender PDF is not in ../shared/data/pdfs/zh_tender", file=sys.stderr)
        return 1
    settings = load_settings()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{args.kb}{suffix}").unlink(missing_ok=True)
    enc = open_encoder(settings)
    with Store.open(args.kb, encoder_id=enc.model_id, dim=enc.dim) as store:
        Ingestor(store, enc, ingest_options(settings, late=False)).ingest_paths([PDF])
        llm = open_cached_llm(settings, store)
        t0 = time.perf_counter()
        report = Enricher(store, enc, llm, EnrichOptions(limit=args.chunks)).run()
        wall = time.perf_counter() - t0
        model_id = llm.model_id
        llm.close()
        atoms = check_atoms(store)
    q, s = report.costs["questions"], report.costs["summaries"]
    model_seconds = q.llm_seconds + s.llm_seconds
    t1 = http_fanout(args.kb, args.chunks, 1)
    tn = http_fanout(args.kb, args.chunks, args.parallel)
    lines = [
        BEGIN,
        "## Enrichment (issue 4)",
        "",
        f"`python build/bench_enrich.py` (`make bench`) on {platform.processor() or platform.machine()},"
        f" {dt.date.today()}: the tender PDF ({PDF.name}), its first {args.chunks} chunks, LLM `{model_id}`"
        f" in-process on the CPU, encoder `{enc.model_id}`.",
        "",
        "| figure | value |",
        "|---|---|",
        f"| chunks per minute (questions stage, wall) | {60 * q.items / q.seconds:.1f} |",
        f"| document summary | {s.seconds:.1f} s, {s.prompt_tokens} prompt + {s.completion_tokens} output tokens |",
        f"| prompt tokens per chunk (incl. retries) | {q.prompt_tokens / max(1, q.items):.0f} |",
        f"| output tokens per chunk | {q.completion_tokens / max(1, q.items):.0f} |",
        f"| LLM calls / retries | {q.calls} / {q.calls - q.items} |",
        f"| our wall time / the model's time for the same calls | {wall:.1f} s / {model_seconds:.1f} s"
        f" = {wall / model_seconds:.3f} (overhead {100 * (wall / model_seconds - 1):.1f} %) |",
        f"| questions stage: wall / model time | {q.seconds:.1f} s / {q.llm_seconds:.1f} s"
        f" (overhead {100 * (q.seconds / q.llm_seconds - 1):.1f} %) |",
        f"| summary stage: wall / model time (wall includes re-embedding every chunk under its new header) |"
        f" {s.seconds:.1f} s / {s.llm_seconds:.1f} s |",
        f"| questions stored | {report.questions} ({report.dropped} refused by the checks) |",
        f"| Chinese questions | {atoms.chinese} / {atoms.questions} |",
        f"| questions sharing a key term with their chunk | {atoms.sharing} / {atoms.questions} |",
        f"| failed chunks (reply unusable after one retry) | {atoms.failed_chunks}; invalid-JSON crashes: 0 |",
        f"| HTTP stand-in (fixed 0.5 s per request), {args.chunks} chunks | 1 at a time {t1:.1f} s,"
        f" {args.parallel} at a time {tn:.1f} s: speed-up {t1 / tn:.2f}x (peak {_FixedLatency.peak} in flight) |",
        "",
        "The overhead is the wall time of the enrichment (prompt building, parsing, the question vectors, the SQLite"
        " writes and the re-embedding of headers after the summary) over the summed time of llama-cpp-python's"
        " `create_chat_completion` for the same calls.",
        END,
    ]
    section = "\n".join(lines)
    write_section(args.out, BEGIN, END, section)
    print(section)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
