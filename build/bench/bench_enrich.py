"""Enrichment benchmark: the default LLM over the Chinese tender PDF, and HTTP fan-out.

Part 1 ingests the tender PDF into a fresh KB (default encoder, no late vectors) and enriches its first ``--chunks``
chunks with the in-process default model: chunks per minute; tokens per chunk, sent and actually evaluated (after
the KV prefix the model reused), split into the fixed instructions, the document's part, the chunk's part, and the
reply's questions and JSON; our wall time against the ceiling time for those tokens (``build/bench/bench_llm_ceiling.py
--json``); the questions' language and key-term overlap with their chunks. Part 2 enriches the same chunks through
the OpenAI-compatible client against a loopback server with a fixed latency, with 1 and with N parallel requests.

Each run is kept under its ``--label`` in build/cache/bench_enrich.json, and the section of docs/BENCHMARKS.md shows
every label side by side (run the script from an older checkout with the same --json to compare prompts).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sections import write_section  # noqa: E402

from pikelocal.config import Settings, load_settings  # noqa: E402
from pikelocal.embed.factory import open_encoder  # noqa: E402
from pikelocal.embed.fake import HashEncoder  # noqa: E402
from pikelocal.eval.atoms import check_atoms  # noqa: E402
from pikelocal.ingest.enrich.enrich import Enricher, EnrichOptions  # noqa: E402
from pikelocal.ingest.pipeline import Ingestor  # noqa: E402
from pikelocal.kb.options import ingest_options  # noqa: E402
from pikelocal.kb.session import kb_session  # noqa: E402
from pikelocal.llm.base import Completion, GenParams, Message  # noqa: E402
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


def http_fanout(kb: Path, pdf: Path, chunks: int, parallel: int) -> float:
    """Seconds to enrich ``chunks`` chunks of a fresh copy of the tender KB through the stand-in server."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _FixedLatency)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    enc = HashEncoder()
    path = kb.with_name(f"http-{parallel}.kb")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Store.open(path, encoder_id=enc.model_id, dim=enc.dim) as store:
        Ingestor(store, enc, ingest_options(load_settings(), late=False)).ingest_paths([pdf])
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        llm = OpenAICompatLLM(url, "stand-in", max_parallel=parallel)
        t0 = time.perf_counter()
        Enricher(store, enc, llm, EnrichOptions.from_settings(Settings(), summaries=False, limit=chunks)).run()
        seconds = time.perf_counter() - t0
    server.shutdown()
    return seconds


class Recorder:
    """Passes calls to ``inner`` and keeps every (messages, params, completion)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.model_id = inner.model_id  # type: ignore[attr-defined]
        self.context_tokens = inner.context_tokens  # type: ignore[attr-defined]
        self.max_parallel = inner.max_parallel  # type: ignore[attr-defined]
        self.calls: list[tuple[list[Message], GenParams, Completion]] = []

    def complete(self, messages: list[Message], params: GenParams) -> Completion:
        c = self.inner.complete(messages, params)  # type: ignore[attr-defined]
        self.calls.append((list(messages), params, c))
        return c

    def stream(self, messages: list[Message], params: GenParams):  # type: ignore[no-untyped-def]
        return self.inner.stream(messages, params)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.inner.close()  # type: ignore[attr-defined]


def token_split(calls: list[tuple[list[Message], GenParams, Completion]], count) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Mean tokens per atomize call: the instructions (before the document's title), the document's part (up to
    the chunk's section line), the chunk's part (the rest: in the first enrichment prompt layout the document summary
    and the last instruction were there), and the reply's question text, chunk summary and JSON scaffolding."""
    doc_mark, chunk_mark = re.compile(r"文档：|Document: "), re.compile(r"位置：|Section: ")
    fixed = doc = chunk = questions = summary = graph = json_scaffold = 0.0
    for messages, _, c in calls:
        user = messages[1].content
        d = doc_mark.search(user)
        k = chunk_mark.search(user)
        d0 = d.start() if d else 0
        k0 = k.start() if k else d0
        fixed += count(messages[0].content) + count(user[:d0])
        doc += count(user[d0:k0])
        chunk += count(user[k0:])
        try:
            data = json.loads(c.text)
        except ValueError:
            continue
        q = sum(count(x) for x in data.get("questions", []) if isinstance(x, str))
        sm = count(data["summary"]) if isinstance(data.get("summary"), str) else 0
        names = [x for x in data.get("entities", []) if isinstance(x, str)]
        names += [x for t in data.get("triples", []) if isinstance(t, list) for x in t if isinstance(x, str)]
        g = sum(count(x) for x in names)
        questions += q
        summary += sm
        graph += g
        json_scaffold += c.completion_tokens - q - sm - g
    n = max(1, len(calls))
    return {
        "fixed": fixed / n,
        "document": doc / n,
        "chunk": chunk / n,
        "questions": questions / n,
        "summary": summary / n,
        "graph": graph / n,
        "json": json_scaffold / n,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    parser.add_argument("--kb", type=Path, default=ROOT / "build" / "bench-enrich.kb")
    parser.add_argument("--pdf", type=Path, default=PDF, help="the document to ingest and enrich")
    parser.add_argument("--chunks", type=int, default=16, help="chunks to enrich with the real model")
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--label", default="this checkout", help="name of this run's column")
    parser.add_argument("--json", type=Path, help="runs kept by label (default: build/cache/SECTION.json)")
    parser.add_argument("--ceiling", type=Path, default=ROOT / "build" / "cache" / "ceiling.json")
    parser.add_argument("--entities", action="store_true", help="the questions' call also reads entities and triples")
    parser.add_argument("--tree-nodes", type=int, default=0, help="then summarise this many summary-tree nodes")
    parser.add_argument("--no-http", action="store_true", help="skip part 2 (the loopback fan-out)")
    parser.add_argument("--section", default="bench_enrich", help="the marker name of the section written")
    parser.add_argument("--batch", type=int, default=1, help="llm.batch: calls decoded together (0: as calibrated)")
    args = parser.parse_args()
    args.json = args.json or ROOT / "build" / "cache" / f"{args.section}.json"
    if args.pdf is None:
        print("the tender PDF is not in ../shared/data/pdfs/zh_tender (give --pdf)", file=sys.stderr)
        return 1
    settings = load_settings(overrides={"llm.batch": args.batch})
    for suffix in ("", "-wal", "-shm"):
        Path(f"{args.kb}{suffix}").unlink(missing_ok=True)
    enc = open_encoder(settings)
    with kb_session(settings, args.kb, encoder=enc, create=True) as session:
        store = session.store
        Ingestor(store, enc, ingest_options(settings, late=False)).ingest_paths([args.pdf])
        cached = session.llm()
        llm = Recorder(cached)
        options = EnrichOptions.from_settings(Settings(), limit=args.chunks, entities=args.entities)
        report = Enricher(store, enc, llm, options).run()  # type: ignore[arg-type]
        tree = None
        if args.tree_nodes:
            from pikelocal.ingest.enrich.trees import TreeBuilder

            tree = TreeBuilder(store, enc, llm, budget=args.tree_nodes).run().cost  # type: ignore[arg-type]
        model_id = llm.model_id
        atoms = check_atoms(store)
        count = cached.inner.count_tokens  # type: ignore[attr-defined]
        width = cached.inner.max_parallel  # type: ignore[attr-defined]
        q_calls = [c for c in llm.calls if c[1].tag.startswith("atomize")]
        split = token_split(q_calls, count)
    q, s = report.question_cost, report.summary_cost
    assert q is not None and s is not None
    sent = sum(c.prompt_tokens for _, _, c in q_calls)
    evaluated = sum(c.evaluated for _, _, c in q_calls)
    output = sum(c.completion_tokens for _, _, c in q_calls)
    ceiling = json.loads(args.ceiling.read_text()) if args.ceiling.exists() else None
    gen_tps = None if ceiling is None else ceiling["generation_tps"].get(str(width), ceiling["generation_tps"]["1"])
    ceiling_s = evaluated / ceiling["prompt_tps"] + output / gen_tps if ceiling is not None else None
    n = max(1, q.items)
    figures = {
        "date": str(dt.date.today()),
        "model": model_id,
        "chunks": q.items,
        "width": width,
        "chunks_per_min": 60 * q.items / q.seconds,
        "sent": sent / n,
        "evaluated": evaluated / n,
        "output": output / n,
        "wall_s": q.seconds / n,
        "model_s": q.llm_seconds / n,
        "ceiling_s": None if ceiling_s is None else ceiling_s / n,
        "calls": q.calls,
        "questions": report.questions,
        "dropped": report.dropped,
        "chinese": f"{atoms.chinese} / {atoms.questions}",
        "sharing": f"{atoms.sharing} / {atoms.questions}",
        "failed": atoms.failed_chunks,
        "summary_s": s.seconds,
        **{f"split_{k}": v for k, v in split.items()},
        "entities": args.entities,
    }
    if tree is not None and tree.items:
        figures |= {
            "tree_nodes": tree.items,
            "tree_s": tree.seconds / tree.items,
            "tree_sent": tree.prompt_tokens / tree.items,
            "tree_evaluated": tree.prompt_evaluated / tree.items,
            "tree_output": tree.completion_tokens / tree.items,
        }
    runs = json.loads(args.json.read_text()) if args.json.exists() else {}
    runs[args.label] = figures
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(runs, indent=1, ensure_ascii=False), encoding="utf-8")
    t1 = tn = float("nan")
    if not args.no_http:
        t1 = http_fanout(args.kb, args.pdf, args.chunks, 1)
        tn = http_fanout(args.kb, args.pdf, args.chunks, args.parallel)
    begin, end = f"<!-- {args.section}:begin -->", f"<!-- {args.section}:end -->"
    section = render(runs, args, ceiling, t1, tn).replace(BEGIN, begin).replace(END, end)
    write_section(args.out, begin, end, section)
    print(section)
    return 0


ROWS = [
    ("calls decoded together (llm.batch)", "width", "{}"),
    ("chunks per minute (questions stage, wall)", "chunks_per_min", "{:.1f}"),
    ("prompt tokens per chunk, sent", "sent", "{:.0f}"),
    ("… of which the model evaluated (after the reused KV prefix)", "evaluated", "{:.0f}"),
    ("output tokens per chunk", "output", "{:.0f}"),
    ("tokens per chunk the model ran (evaluated + output)", None, ""),
    ("wall seconds per chunk", "wall_s", "{:.1f}"),
    ("ceiling seconds for those tokens (llama.cpp alone, at that width)", "ceiling_s", "{:.1f}"),
    ("wall / ceiling", None, ""),
    ("prompt: fixed instructions (system + rules), tokens", "split_fixed", "{:.0f}"),
    ("prompt: the document's part (title, summary)", "split_document", "{:.0f}"),
    ("prompt: the chunk's part (section, text, trailing lines)", "split_chunk", "{:.0f}"),
    ("reply: question text", "split_questions", "{:.0f}"),
    ("reply: chunk summary", "split_summary", "{:.0f}"),
    ("reply: entity names and triples' words (enrich.entities)", "split_graph", "{:.0f}"),
    ("reply: JSON scaffolding", "split_json", "{:.0f}"),
    ("LLM calls (retries included)", "calls", "{}"),
    ("questions stored (refused by the checks)", "questions", "{}"),
    ("Chinese questions", "chinese", "{}"),
    ("questions sharing a key term with their chunk", "sharing", "{}"),
    ("failed chunks", "failed", "{}"),
    ("summary-tree nodes summarised (--tree-nodes)", "tree_nodes", "{}"),
    ("… wall seconds per node", "tree_s", "{:.1f}"),
    ("… prompt tokens per node, sent / evaluated", "tree_sent", "{:.0f}"),
    ("… output tokens per node", "tree_output", "{:.0f}"),
]


# The heading of each section this script writes (--section); another section is headed "Enrichment: NAME".
TITLES = {
    "bench_enrich": "Enrichment",
    "bench_enrich_batch": "Enrichment with batched in-process calls (llm.batch)",
    "bench_enrich_graph": "Enrichment with the entity graph: questions alone against questions and entities",
}


def render(runs: dict, args: argparse.Namespace, ceiling: dict | None, t1: float, tn: float) -> str:  # type: ignore[type-arg]
    labels = list(runs)
    lines = [
        BEGIN,
        f"## {TITLES.get(args.section, f'Enrichment: {args.section}')}",
        "",
        f"`python build/bench/bench_enrich.py {' '.join(sys.argv[1:])}` (`make bench`)"
        f" on {platform.processor() or platform.machine()}:"
        f" the tender PDF ({args.pdf.name}), its first {args.chunks} chunks after the document summary,"
        " default LLM in-process on the CPU, default encoder. Each column is one run (its date below); a column"
        " from an older checkout was run with this script copied into it.",
        "",
        "| figure | " + " | ".join(labels) + " |",
        "|---" * (len(labels) + 1) + "|",
        "| date | " + " | ".join(str(runs[k]["date"]) for k in labels) + " |",
    ]
    for name, key, fmt in ROWS:
        cells = []
        for k in labels:
            r = runs[k]
            if name.startswith("tokens per chunk the model ran"):
                cells.append(f"{r['evaluated'] + r['output']:.0f}")
            elif key == "tree_sent":
                cells.append(f"{r['tree_sent']:.0f} / {r['tree_evaluated']:.0f}" if r.get("tree_sent") else "-")
            elif name == "wall / ceiling":
                cells.append(f"{r['wall_s'] / r['ceiling_s']:.2f}" if r.get("ceiling_s") else "-")
            else:
                v = r.get(key) if key else None
                cells.append("-" if v is None else fmt.format(v))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    if ceiling is not None:
        lines += [
            "",
            f"Ceiling used: prompt {ceiling['prompt_tps']:.1f} tok/s, generation {ceiling['generation_tps']['1']:.1f}"
            " tok/s (1 sequence), from `build/bench/bench_llm_ceiling.py` on this machine.",
        ]
    if t1 == t1:  # not NaN: part 2 ran
        lines += [
            "",
            f"HTTP stand-in (fixed 0.5 s per request), {args.chunks} chunks: 1 at a time {t1:.1f} s, {args.parallel}"
            f" at a time {tn:.1f} s: speed-up {t1 / tn:.2f}x (peak {_FixedLatency.peak} in flight).",
        ]
    lines.append(END)
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
