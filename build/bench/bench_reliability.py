"""Re-run the reliability tests' hostile and heavy cases (files, LLM servers, damaged KBs, review exports) through
the real CLI and record what happens: exit code, the lines that matter, wall time and peak RSS (``/usr/bin/time``).
Writes a section of docs/RELIABILITY.md.

    python build/bench/bench_reliability.py [--out docs/RELIABILITY.md] [--only NAME …] [--timeout 120]

Every case builds its own input in a temporary folder; nothing outside it is touched. The encoder is MiniLM (the
small installed one) so each case measures pikelocal's handling, not the default encoder's speed.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import platform
import re
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
# Sections of docs/RELIABILITY.md this script writes (--section), each replaced whole by a run.
SECTIONS = {
    "bench_reliability": "Hostile and heavy input, re-run",
    "bench_reliability_44": "Air gap, Office files, links, damaged KBs and small gaps, re-run",
    "bench_reliability_52": "Hostile output: review exports, checklists and marks",
}
ENC = ("--encoder", "minilm")
TINY = (*ENC, "--llm-model", "tiny")  # the review's cases: the tiny model, as the probe ran them


@dataclass
class Run:
    code: int | None  # None: killed at the timeout
    seconds: float
    rss_mb: float
    stdout: str
    stderr: str


@dataclass
class Outcome:
    case: str
    command: str
    result: str
    seconds: float = 0.0
    rss_mb: float = 0.0
    notes: list[str] = field(default_factory=list)


def cli(args: list[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None) -> Run:
    """``pikelocal ARGS`` under /usr/bin/time: its exit code, output, wall time and peak RSS."""
    stats = cwd / ".time"
    cmd = ["/usr/bin/time", "-f", "%M %e", "-o", str(stats), sys.executable, "-m", "pikelocal", *args]
    t0 = time.monotonic()
    full_env = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    try:
        proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=full_env)
        code, out, err = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as exc:
        code = None
        out = (exc.stdout or b"").decode("utf-8", "replace") if isinstance(exc.stdout, bytes) else exc.stdout or ""
        err = (exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else exc.stderr or ""
    seconds = time.monotonic() - t0
    rss = 0.0
    if stats.exists() and stats.read_text().strip():
        last = stats.read_text().strip().splitlines()[-1].split()
        if last and last[0].isdigit():
            rss = int(last[0]) / 1024
    return Run(code, seconds, rss, out, err)


def summary(run: Run, *, keep: int = 3, pattern: str = "") -> str:
    """Exit code and the output lines worth reading (those matching ``pattern``, or the last few)."""
    lines = [line.strip() for line in (run.stdout + "\n" + run.stderr).splitlines() if line.strip()]
    lines = [line for line in lines if "█" not in line and "░" not in line]  # progress bars
    chosen = [line for line in lines if re.search(pattern, line)] if pattern else lines[-keep:]
    code = "killed at the timeout" if run.code is None else f"exit {run.code}"
    return f"{code}: " + " / ".join(line[:160] for line in chosen[:keep])


# --- inputs ---------------------------------------------------------------------------------------------------


def cert_encrypted_pdf(path: Path) -> None:
    """A PDF whose /Encrypt dictionary names the certificate (public-key) security handler."""
    from pypdf import PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, NumberObject

    writer = PdfWriter()
    writer.add_blank_page(200, 200)
    enc = DictionaryObject({NameObject("/Filter"): NameObject("/Adobe.PubSec"), NameObject("/V"): NumberObject(4)})
    writer._encrypt_entry = writer._add_object(enc)  # noqa: SLF001 - written into the trailer below
    with path.open("wb") as fh:
        writer.write(fh)
    data = path.read_bytes()
    ref = f"{writer._encrypt_entry.idnum} 0 R".encode()  # noqa: SLF001
    path.write_bytes(data.replace(b"trailer\n<<", b"trailer\n<<\n/Encrypt " + ref, 1))


def aes_pdf(path: Path) -> None:
    """One page of text ("bid bond" notice), AES-256 encrypted with an empty user password, as Acrobat writes."""
    from tests.support.pdfs import text_page_writer  # ROOT is on sys.path (see the top of this script)

    writer = text_page_writer("The bid bond is five percent of the tender price.")
    writer.add_metadata({"/Title": "AES tender notice"})
    writer.encrypt(user_password="", owner_password="owner", algorithm="AES-256")
    with path.open("wb") as fh:
        writer.write(fh)


def shared_stream_pdf(path: Path, pages: int = 2000, stream_mb: int = 3) -> None:
    """``pages`` pages that all draw one content stream of ``stream_mb`` MB (a 321 KB file when compressed)."""
    from pypdf import PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, StreamObject

    writer = PdfWriter()
    font = DictionaryObject({NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
                             NameObject("/BaseFont"): NameObject("/Helvetica")})  # fmt: skip
    resources = writer._add_object(  # noqa: SLF001 - one resource dictionary shared by every page
        DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})  # noqa: SLF001
    )
    text = b"BT /F1 9 Tf 20 700 Td (" + b"bid bond " * 20 + b") Tj ET\n"
    stream = StreamObject()
    stream.set_data(text * (stream_mb * 1024 * 1024 // len(text)))
    ref = writer._add_object(stream.flate_encode())  # noqa: SLF001
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Contents")] = ref
        page[NameObject("/Resources")] = resources
    with path.open("wb") as fh:
        writer.write(fh)


def broken_pdf(path: Path) -> None:
    """A valid small PDF whose object dictionaries are then damaged byte by byte (pypdf warns on each)."""
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(40):
        writer.add_blank_page(200, 200)
    with path.open("wb") as fh:
        writer.write(fh)
    data = bytearray(path.read_bytes())
    for m in re.finditer(rb"/Type /Page\b", bytes(data)):
        data[m.start() + 1 : m.start() + 5] = b"Tpye"
    path.write_bytes(bytes(data).replace(b"startxref", b"startxreF"))


def minimal_kb(folder: Path, env: dict[str, str] | None = None) -> Path:
    """A small KB to search and ask (two text files)."""
    docs = folder / "kbdocs"
    docs.mkdir()
    (docs / "tender.txt").write_text("The bid bond is 50,000 yuan and is due with the bid.\n")
    kb = folder / "small.kb"
    cli([*ENC, "ingest", str(kb), str(docs), "--no-late"], cwd=folder, timeout=300, env=env)
    return kb


# --- misbehaving LLM servers ------------------------------------------------------------------------------------


def serve(kind: str) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if kind == "error-escape":  # an error body that would retitle and clear the terminal printing it
                body = b'{"error": {"message": "\\u001b]0;owned\\u0007 model crashed \\u001b[2J"}}'
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return
            if kind == "redirect":
                self.send_response(302)
                self.send_header("Location", "http://example.invalid/v1/chat/completions")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            try:
                if kind == "drip":
                    for ch in b'{"choices": [':
                        self.wfile.write(bytes([ch]))
                        self.wfile.flush()
                        time.sleep(2)
                elif kind == "nested":
                    self.wfile.write(b"[" * 200_000 + b"]" * 200_000)
                elif kind == "unbounded":
                    chunk = b" " * (1 << 20)
                    for _ in range(2048):  # 2 GiB of whitespace
                        self.wfile.write(chunk)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/v1"


# --- the cases -------------------------------------------------------------------------------------------------


def case_certificate_pdf(tmp: Path, timeout: float) -> Outcome:
    folder = tmp / "batch"
    folder.mkdir()
    (folder / "a.txt").write_text("Alpha: the pumps arrive in June.\n")
    cert_encrypted_pdf(folder / "b.pdf")
    (folder / "c.txt").write_text("Gamma: the warranty is two years.\n")
    kb = tmp / "kb.kb"
    first = cli([*ENC, "ingest", str(kb), str(folder)], cwd=tmp, timeout=timeout)
    again = cli([*ENC, "ingest", str(kb), str(folder)], cwd=tmp, timeout=timeout)
    found = cli([*ENC, "search", str(kb), "warranty pumps", "--mode", "dense", "--json"], cwd=tmp, timeout=timeout)
    names = sorted({Path(h["document"]).name for h in json.loads(found.stdout or "[]")})
    result = (f"{summary(first, pattern='Ingested|failed')}; rerun {summary(again, pattern='Ingested|failed')};"
              f" dense search finds {names}")  # fmt: skip
    return Outcome("certificate-encrypted PDF between two text files", "ingest KB folder (twice); search --mode dense",
                   result, first.seconds, first.rss_mb)  # fmt: skip


def case_aes_pdf(tmp: Path, timeout: float) -> Outcome:
    aes_pdf(tmp / "notice.pdf")
    kb = tmp / "kb.kb"
    run = cli([*ENC, "ingest", str(kb), str(tmp / "notice.pdf")], cwd=tmp, timeout=timeout)
    found = cli([*ENC, "search", str(kb), "bid bond", "--mode", "bm25", "--json"], cwd=tmp, timeout=timeout)
    hits = json.loads(found.stdout or "[]") if found.code == 0 else []
    text = hits[0]["snippet"][:60] if hits else "(nothing)"
    result = f"{summary(run, pattern='Ingested|fail')}; search finds {text!r}"
    return Outcome("AES-256 PDF, empty user password", "ingest KB notice.pdf; search KB 'bid bond'", result,
                   run.seconds, run.rss_mb)  # fmt: skip


def _two_at_once(tmp: Path, timeout: float, same: bool) -> Outcome:
    a, b = tmp / "a", tmp / "b"
    for folder in (a, b):
        folder.mkdir()
        for i in range(8):
            (folder / f"{folder.name}{i}.md").write_text(f"# {folder.name} {i}\n\n" + f"clause {i} " * 400)
    kb = tmp / "kb.kb"
    second_folder = a if same else b
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [
        subprocess.Popen([sys.executable, "-m", "pikelocal", *ENC, "ingest", str(kb), str(f)], cwd=tmp, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for f in (a, second_folder)
    ]  # fmt: skip
    t0 = time.monotonic()
    outs = [p.communicate(timeout=timeout)[0] for p in procs]
    codes = [p.returncode for p in procs]
    counts = cli(["stats", str(kb), "--json"], cwd=tmp, timeout=timeout)
    vectors = json.loads(counts.stdout)["vectors"] if counts.code == 0 else {}
    keep = [line.strip() for o in outs for line in o.splitlines() if re.search("Ingested|waiting|rror", line)]
    result = f"exits {codes}; " + " / ".join(keep) + f"; KB vectors {vectors}"
    what = "the same folder" if same else "two different folders"
    return Outcome(f"two ingests of {what} into one KB at once", "ingest KB a & ingest KB " + ("a" if same else "b"),
                   result, time.monotonic() - t0)  # fmt: skip


def case_two_same(tmp: Path, timeout: float) -> Outcome:
    return _two_at_once(tmp, timeout, same=True)


def case_two_different(tmp: Path, timeout: float) -> Outcome:
    return _two_at_once(tmp, timeout, same=False)


def case_shared_stream_pdf(tmp: Path, timeout: float) -> Outcome:
    pdf = tmp / "bomb.pdf"
    shared_stream_pdf(pdf)
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(pdf), "--no-late"], cwd=tmp, timeout=timeout)
    size = pdf.stat().st_size // 1024
    result = summary(run, pattern="Ingested|fail|rror|cut at|repeat", keep=4)
    return Outcome(f"a {size} KB PDF of 2,000 pages sharing one 3 MB content stream", "ingest KB bomb.pdf", result,
                   run.seconds, run.rss_mb)  # fmt: skip


def case_one_line_txt(tmp: Path, timeout: float) -> Outcome:
    txt = tmp / "one-line.txt"
    unit = "投标人应当按照招标文件的要求编制投标文件并在截止时间前提交"
    with txt.open("w", encoding="utf-8") as fh:
        for _ in range(50 * 1024 * 1024 // len(unit.encode()) + 1):
            fh.write(unit)
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(txt), "--no-late"], cwd=tmp, timeout=timeout)
    result = summary(run, pattern="Ingested|fail|rror")
    return Outcome("a 50 MB one-line Chinese .txt", "ingest KB one-line.txt", result, run.seconds, run.rss_mb)


def case_iso(tmp: Path, timeout: float) -> Outcome:
    folder = tmp / "folder"
    folder.mkdir()
    with (folder / "disk.iso").open("wb") as fh:
        fh.truncate(1 << 30)
    (folder / "notes.txt").write_text("The site visit is on Monday.\n")
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(folder)], cwd=tmp, timeout=timeout)
    return Outcome("a 1 GiB .iso inside a folder", "ingest KB folder", summary(run, pattern="Ingested|iso|fail"),
                   run.seconds, run.rss_mb)  # fmt: skip


def case_cwd_toml(tmp: Path, timeout: float) -> Outcome:
    kb = minimal_kb(tmp)
    (tmp / "pikelocal.toml").write_text('[llm]\nbackend = "openai"\nbase_url = "http://203.0.113.9:8080/v1"\n')
    here = cli(["docs", str(kb)], cwd=tmp, timeout=timeout)
    named = cli(["--config", "pikelocal.toml", "docs", str(kb)], cwd=tmp, timeout=timeout)
    result = f"{summary(here, pattern='not read')}; named with --config: {summary(named, pattern='Error')}"
    command = "docs KB (in that folder); --config pikelocal.toml docs KB"
    case = "`pikelocal.toml` in the current folder pointing the LLM at an HTTP server"
    return Outcome(case, command, result, here.seconds, here.rss_mb)


def case_symlink_out(tmp: Path, timeout: float) -> Outcome:
    outside = tmp / "outside.txt"
    outside.write_text("Secret from outside the folder.\n")
    folder = tmp / "folder"
    folder.mkdir()
    (folder / "inside.txt").write_text("Inside the folder.\n")
    (folder / "link.txt").symlink_to(outside)
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(folder)], cwd=tmp, timeout=timeout)
    return Outcome("a symlink inside a folder pointing outside it", "ingest KB folder",
                   summary(run, pattern="Ingested|link|skip"), run.seconds, run.rss_mb)  # fmt: skip


def case_fifo_and_loop(tmp: Path, timeout: float) -> Outcome:
    fifo, loop, good = tmp / "pipe.txt", tmp / "loop.txt", tmp / "good.txt"
    os.mkfifo(fifo)
    loop.symlink_to(loop)
    good.write_text("The bid bond is due with the bid.\n")
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(fifo), str(loop), str(good)], cwd=tmp, timeout=timeout)
    result = summary(run, keep=4, pattern="Ingested|pipe|loop|rror")
    case = "an explicit FIFO path and a symlink-loop path, then a good file"
    return Outcome(case, "ingest KB pipe.txt loop.txt good.txt", result, run.seconds, run.rss_mb)


def case_escapes(tmp: Path, timeout: float) -> Outcome:
    folder = tmp / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("The bid deposit\x1b[2J is due.\x1b]0;pwned\x07 Deposits are refunded.\n")
    kb = tmp / "kb.kb"
    cli([*ENC, "ingest", str(kb), str(folder), "--no-late"], cwd=tmp, timeout=timeout)
    run = cli(["search", str(kb), "deposit", "--mode", "bm25"], cwd=tmp, timeout=timeout)
    escapes = sum(run.stdout.count(c) for c in "\x1b\x07")
    return Outcome("document text holding terminal escapes (clear screen, OSC title)", "search KB deposit --mode bm25",
                   f"exit {run.code}; {escapes} ESC/BEL bytes in the output", run.seconds, run.rss_mb)  # fmt: skip


def case_broken_pdf(tmp: Path, timeout: float) -> Outcome:
    broken_pdf(tmp / "broken.pdf")
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(tmp / "broken.pdf")], cwd=tmp, timeout=timeout)
    size = len((run.stdout + run.stderr).encode())
    result = f"{summary(run, pattern='Ingested|fail')}; {size:,} bytes of output"
    return Outcome("one PDF with broken dictionaries", "ingest KB broken.pdf", result, run.seconds, run.rss_mb)


def case_permissions(tmp: Path, timeout: float) -> Outcome:
    old = os.umask(0o022)
    try:
        minimal_kb(tmp)
    finally:
        os.umask(old)
    modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in tmp.glob("small.kb*")}
    return Outcome("KB file permissions (umask 022)", "ingest KB …; stat", f"modes {modes}")


def _server_case(tmp: Path, timeout: float, kind: str, label: str) -> Outcome:
    kb = minimal_kb(tmp)
    server, url = serve(kind)
    try:
        args = ["--llm-backend", "openai", "--llm-url", url, "--llm-model", "m", *ENC]
        run = cli([*args, "ask", str(kb), "How much is the bid bond?", "--mode", "naive"], cwd=tmp, timeout=timeout,
                  env={"PIKELOCAL_LLM_TIMEOUT_S": "5"})  # fmt: skip
    finally:
        server.shutdown()
    return Outcome(f"HTTP backend: {label}", "ask KB … (llm.timeout_s = 5)", summary(run, pattern="Error"),
                   run.seconds, run.rss_mb)  # fmt: skip


def case_drip(tmp: Path, timeout: float) -> Outcome:
    return _server_case(tmp, timeout, "drip", "a server dripping one byte every 2 s")


def case_nested(tmp: Path, timeout: float) -> Outcome:
    return _server_case(tmp, timeout, "nested", "a deeply nested JSON reply")


def case_redirect(tmp: Path, timeout: float) -> Outcome:
    return _server_case(tmp, timeout, "redirect", "a 302 redirect")


def case_unbounded(tmp: Path, timeout: float) -> Outcome:
    return _server_case(tmp, timeout, "unbounded", "an unbounded reply (2 GiB)")


def case_fuzz(tmp: Path, timeout: float) -> Outcome:
    """The standing fuzz suite (tests/fuzz), its counts as it prints them."""
    t0 = time.monotonic()
    cmd = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "tests/fuzz", "-k", "mutated"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=max(timeout, 900))
    line = next((x for x in proc.stdout.splitlines() if x.startswith("fuzz seed")), proc.stdout.strip()[-200:])
    verdict = "passed" if proc.returncode == 0 else f"FAILED (exit {proc.returncode})"
    return Outcome("fuzz suite: mutated PDFs and text files", "pytest tests/fuzz", f"{verdict}; {line}",
                   time.monotonic() - t0)  # fmt: skip


def case_links_named(tmp: Path, timeout: float) -> Outcome:
    etc = tmp / "etc"  # stand-ins for /etc/shadow and /etc/passwd: nothing outside the case's folder is read
    etc.mkdir()
    (etc / "shadow").write_text("root:$6$salt$hashofthesecretpassword:19000:0:99999:7:::\n")
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    folder = tmp / "folder"
    folder.mkdir()
    (folder / "notes.txt").write_text("The bid bond is due with the bid.\n")
    (folder / "shadow.txt").symlink_to(etc / "shadow")
    (folder / "passwd.txt").symlink_to(etc / "passwd")
    named = [str(p) for p in sorted(folder.iterdir())]  # what the shell makes of folder/*
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), *named, "--no-late"], cwd=tmp, timeout=timeout)
    found = cli(["search", str(tmp / "kb.kb"), "root", "--mode", "bm25"], cwd=tmp, timeout=timeout)
    searchable = re.search(r"root\]?:", found.stdout) is not None  # the snippet marks the word: [root]:
    result = f"{summary(run, pattern='Ingested|failed  ')}; `search KB root` finds it: {searchable}"
    return Outcome("links in a folder to /etc/shadow and /etc/passwd stand-ins, named by the shell's glob",
                   "ingest KB folder/*", result, run.seconds, run.rss_mb)  # fmt: skip


def _swap_when_reading_starts(tmp: Path, doc: Path, target: Path, done: list[str]) -> None:
    """Swap ``doc`` for a link to ``target`` once this case's reading process is up: discovery is over then,
    and the big PDF before ``doc`` is being read. The process is told apart by a variable only this case sets
    and by its module (``pikelocal.ingest.read.pdf_child``)."""
    marker = f"BENCH_RELIABILITY_SWAP={tmp}".encode()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for proc in Path("/proc").iterdir():
            try:
                if not proc.name.isdigit() or marker not in (proc / "environ").read_bytes().split(b"\0"):
                    continue
                if not any(b"child" in arg for arg in (proc / "cmdline").read_bytes().split(b"\0")):
                    continue  # the ingest itself (or /usr/bin/time around it), not its reading process
            except OSError:
                continue
            doc.unlink()
            doc.symlink_to(target)
            done.append(f"swapped at {time.monotonic():.2f}")
            return
        time.sleep(0.005)


def case_swap_after_discovery(tmp: Path, timeout: float) -> Outcome:
    (tmp / "shadow").write_text("root:$6$salt$hashofthesecretpassword:19000:0:99999:7:::\n")  # the /etc/shadow stand-in
    folder = tmp / "folder"
    folder.mkdir()
    shared_stream_pdf(folder / "a-big.pdf", pages=400)
    doc = folder / "shadow.txt"
    doc.write_text("An ordinary note, as it was when the folder was walked.\n")
    done: list[str] = []
    swapper = threading.Thread(target=_swap_when_reading_starts, args=(tmp, doc, tmp / "shadow", done), daemon=True)
    swapper.start()
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(folder), "--no-late"], cwd=tmp, timeout=timeout,
              env={"BENCH_RELIABILITY_SWAP": str(tmp)})  # fmt: skip
    swapper.join(1)
    found = cli(["search", str(tmp / "kb.kb"), "root", "--mode", "bm25"], cwd=tmp, timeout=timeout)
    swap = "swapped while the PDF was read" if done else "NOT swapped in time (the case proves nothing)"
    searchable = re.search(r"root\]?:", found.stdout) is not None  # the snippet marks the word: [root]:
    result = f"{swap}; {summary(run, pattern='Ingested|failed  ')}; `search KB root` finds it: {searchable}"
    return Outcome("a file swapped for a link to an /etc/shadow stand-in after discovery, while a big PDF is read",
                   "ingest KB folder", result, run.seconds, run.rss_mb)  # fmt: skip


def case_kb_link(tmp: Path, timeout: float) -> Outcome:
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    (tmp / "kb.kb").symlink_to(elsewhere / "planted.kb")  # dangling: nothing there yet
    (tmp / "note.txt").write_text("The bid bond is due with the bid.\n")
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(tmp / "note.txt")], cwd=tmp, timeout=timeout)
    planted = elsewhere / "planted.kb"
    at_target = f"a file of mode {stat.S_IMODE(planted.stat().st_mode):o}" if planted.exists() else "nothing"
    result = f"{summary(run, keep=1, pattern='link|rror|Ingested')}; at the target: {at_target}"
    return Outcome("a dangling symlink at the KB path", "ingest KB note.txt", result, run.seconds, run.rss_mb)


def _office_batch(
    tmp: Path, timeout: float, name: str, data: bytes, what: str, env: dict[str, str] | None = None, note: str = ""
) -> Outcome:
    """``data`` as ``name`` in a folder before a good .txt; ``ingest KB folder``; whether the .txt is in."""
    folder = tmp / "folder"
    folder.mkdir()
    (folder / name).write_bytes(data)
    (folder / "z-notes.txt").write_text("Gamma: the warranty is two years.\n")
    run = cli([*ENC, "ingest", str(tmp / "kb.kb"), str(folder), "--no-late"], cwd=tmp, timeout=timeout, env=env)
    found = cli(["search", str(tmp / "kb.kb"), "warranty", "--mode", "bm25", "--json"], cwd=tmp, timeout=timeout)
    names = sorted({Path(h["document"]).name for h in json.loads(found.stdout or "[]")}) if found.code == 0 else []
    result = f"{summary(run, keep=4, pattern='Ingested|fail|rror|cut|limit|DTD')}; the .txt after it found: {names}"
    setting = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    command = (setting + " " if setting else "") + f"ingest KB folder ({name}, z-notes.txt)"
    return Outcome(what + note, command, result, run.seconds, run.rss_mb)


def case_docx_many_runs(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import docx_of_runs  # ROOT is on sys.path (see the top of this script)

    data = docx_of_runs(2_000_000)
    return _office_batch(tmp, timeout, "runs.docx", data,
                         f"a {len(data) // 1024} KB .docx: one paragraph of 2 M runs")  # fmt: skip


def case_docx_huge_text(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import docx_of_one_text

    data = docx_of_one_text(50 * 1024 * 1024)
    return _office_batch(tmp, timeout, "huge.docx", data, "a .docx whose one w:t holds 50 MB of text",
                         {"PIKELOCAL_INGEST_PDF_MAX_CHARS": "20000"},
                         " (text limit lowered so the case measures reading, not embedding)")  # fmt: skip


def case_xlsx_last_column(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import xlsx_rows

    data = xlsx_rows(800_000, column=16_384)
    return _office_batch(tmp, timeout, "far.xlsx", data,
                         f"a {len(data) / 2**20:.1f} MB .xlsx: one cell in column XFD on every row")  # fmt: skip


def case_xlsx_all_rows(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import xlsx_rows

    data = xlsx_rows(1_048_576)
    return _office_batch(tmp, timeout, "rows.xlsx", data, "a .xlsx of 1,048,576 rows",
                         {"PIKELOCAL_INGEST_PDF_MAX_CHARS": "20000"},
                         " (text limit lowered so the case measures reading, not embedding)")  # fmt: skip


def case_docx_late_doctype(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import docx_with_doctype

    return _office_batch(tmp, timeout, "entity.docx", docx_with_doctype(5 * 1024),
                         "a .docx whose document.xml declares a DTD after a 5 KB comment")  # fmt: skip


def flip_middle_pages(kb: Path, out: Path, tables: tuple[str, ...], flips: int = 64) -> list[int]:
    """Copy ``kb`` to ``out`` with ``flips`` bits flipped, shared between the middle leaf page of each table: the
    first bytes of each page (its b-tree header, so that SQLite notices; random flips inside a vector blob would
    go unseen, since SQLite keeps no checksums). The damaged page numbers."""
    import apsw

    conn = apsw.Connection(str(kb), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        page_size = int(conn.execute("PRAGMA page_size").fetchall()[0][0])
        pages = []
        leaf_sql = "SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno"
        for table in tables:
            leaves = [int(r[0]) for r in conn.execute(leaf_sql, (table,))]
            pages.append(leaves[len(leaves) // 2])
    finally:
        conn.close()
    data = bytearray(kb.read_bytes())
    per_page = flips // 8 // len(pages)  # bytes inverted per page
    for page in pages:
        for i in range((page - 1) * page_size, (page - 1) * page_size + per_page):
            data[i] ^= 0xFF
    out.write_bytes(bytes(data))
    return pages


def case_damaged_kb(tmp: Path, timeout: float) -> Outcome:
    """64 bits flipped in the middle of a KB (a leaf page of the chunks and one of their full-text index).
    Writers refuse it, readers warn and go on, `recover` copies what reads into a new KB, which `doctor` passes."""
    import hashlib

    docs = tmp / "docs"
    docs.mkdir()
    for i in range(8):
        (docs / f"report{i}.md").write_text(f"# Report {i}\n\n" + "\n\n".join(
            f"Paragraph {n} of report {i}: pump {n * i} is serviced as part {n} of the manual says. " * 3
            for n in range(60)))  # fmt: skip
    sound, kb, new = tmp / "sound.kb", tmp / "damaged.kb", tmp / "mended.kb"
    built = cli([*ENC, "ingest", str(sound), str(docs), "--no-late"], cwd=tmp, timeout=timeout)
    chunks = re.search(r"\(([\d,]+) new chunks\)", built.stdout)
    pages = flip_middle_pages(sound, kb, ("chunks", "chunks_fts_data"))
    before = hashlib.sha256(kb.read_bytes()).hexdigest()
    (tmp / "extra.md").write_text("# Extra\n\nThe valves are checked every spring.\n")
    ingest = cli([*ENC, "ingest", str(kb), str(tmp / "extra.md")], cwd=tmp, timeout=timeout)
    docs_run = cli([*ENC, "docs", str(kb)], cwd=tmp, timeout=timeout)
    rm = cli([*ENC, "rm", str(kb), "report1.md"], cwd=tmp, timeout=timeout)
    recover = cli([*ENC, "recover", str(kb), str(new)], cwd=tmp, timeout=timeout)
    doctor = cli([*ENC, "doctor", str(new)], cwd=tmp, timeout=timeout)
    integrity = next((line.split(None, 2)[-1] for line in doctor.stdout.splitlines() if " integrity " in line), "?")
    warned = sum("is damaged" in line for line in docs_run.stderr.splitlines())
    same = hashlib.sha256(kb.read_bytes()).hexdigest() == before
    result = (f"pages {pages} of {chunks.group(1) if chunks else '?'} chunks' KB damaged; ingest"
              f" {summary(ingest, keep=1)}; docs exit {docs_run.code}, {warned} line(s) naming the damage; rm"
              f" {summary(rm, keep=1)}; recover {summary(recover, keep=1, pattern='Recovered')}; doctor on the new KB:"
              f" integrity {integrity}; damaged KB unchanged: {same}")  # fmt: skip
    return Outcome("64 bit flips in the middle of a KB (a chunks page and a full-text page)",
                   "ingest KB extra.md; docs KB; rm KB DOC; recover KB NEW; doctor NEW", result, recover.seconds,
                   recover.rss_mb)  # fmt: skip


# --- small gaps: escapes, localhost names, names shown, the network, --config's help ---------------------------


def case_error_escape(tmp: Path, timeout: float) -> Outcome:
    kb = minimal_kb(tmp)
    server, url = serve("error-escape")
    try:
        args = ["--llm-backend", "openai", "--llm-url", url, "--llm-model", "m", *ENC]
        run = cli([*args, "ask", str(kb), "How much is the bid bond?", "--mode", "naive"], cwd=tmp, timeout=timeout)
    finally:
        server.shutdown()
    escapes = sum((run.stdout + run.stderr).count(c) for c in "\x1b\x07")
    return Outcome("an LLM server's HTTP 500 body holding ESC ]0;…BEL and ESC [2J", "ask KB … (server answers 500)",
                   f"{summary(run, pattern='Error')}; {escapes} ESC/BEL bytes in the output", run.seconds,
                   run.rss_mb)  # fmt: skip


def case_localhost_name(tmp: Path, timeout: float) -> Outcome:
    kb = minimal_kb(tmp)
    args = ["--llm-backend", "openai", "--llm-url", "http://gpu.localhost:8080/v1", "--llm-model", "m", *ENC]
    run = cli([*args, "ask", str(kb), "How much is the bid bond?"], cwd=tmp, timeout=timeout)
    return Outcome("`llm.base_url = http://gpu.localhost:8080/v1` without llm.allow_remote", "--llm-url … ask KB …",
                   summary(run, pattern="Error"), run.seconds, run.rss_mb)  # fmt: skip


def case_control_names(tmp: Path, timeout: float) -> Outcome:
    folder = tmp / "docs"
    folder.mkdir()
    (folder / "fake\n  99  ready  1  1  forged.txt").write_text("The bid deposit is due on 1 June.\n")
    (folder / "report\u202etxt.exe\x9b.txt").write_text("Deposit refunds follow within 30 days.\n")
    kb = tmp / "kb.kb"
    cli([*ENC, "ingest", str(kb), str(folder), "--no-late"], cwd=tmp, timeout=timeout)
    listed = cli(["docs", str(kb)], cwd=tmp, timeout=timeout)
    as_json = cli(["docs", str(kb), "--json"], cwd=tmp, timeout=timeout)
    forged = sum(line.lstrip().startswith("99  ready") for line in listed.stdout.splitlines())
    raw = sum(as_json.stdout.count(c) for c in "\u202e\x9b")
    return Outcome("a newline in a file name, and U+202E and U+009B in another", "docs KB; docs KB --json",
                   f"exit {listed.code}; forged rows printed: {forged}; names shown: "
                   f"{[line.strip() for line in listed.stdout.splitlines() if 'fake' in line or 'report' in line]};"
                   f" --json exit {as_json.code}, raw U+202E/U+009B: {raw}", listed.seconds, listed.rss_mb)  # fmt: skip


def case_network(tmp: Path, timeout: float) -> Outcome:
    run = cli(["doctor", "--network"], cwd=tmp, timeout=timeout)
    lines = [line.strip() for line in run.stdout.splitlines() if "network" in line or "telemetry" in line]
    return Outcome("telemetry of every library, traced (strace -f) over an encoder run", "doctor --network",
                   f"exit {run.code}: " + " / ".join(lines), run.seconds, run.rss_mb)  # fmt: skip


def case_config_help(tmp: Path, timeout: float) -> Outcome:
    run = cli(["--help"], cwd=tmp, timeout=timeout)
    text = " ".join(run.stdout.split())
    start = text.find("--config")
    return Outcome("`--config`'s help", "--help", text[start : text.find("--", start + 9)].strip(), run.seconds,
                   run.rss_mb)  # fmt: skip


# --- what a review writes for its reviewer ---------------------------------------------------------------------

BUDGET_CHECKLIST = """[[items]]
id = "budget"
label = "Budget"
kind = "amount"
question.en = "What is the budget?"
hints = ["budget"]
"""
FORMULA_START = tuple("=+-@\t\r")


def reviewed_kb(tmp: Path, docs: dict[str, str], timeout: float) -> tuple[Path, Path]:
    """A KB of ``docs`` (name → text) reviewed with the one-item budget checklist, the tiny model answering."""
    folder = tmp / "docs"
    folder.mkdir()
    for name, text in docs.items():
        (folder / name).write_text(text, encoding="utf-8")
    kb, checklist = tmp / "k.kb", tmp / "c.toml"
    checklist.write_text(BUDGET_CHECKLIST, encoding="utf-8")
    cli([*ENC, "ingest", str(kb), str(folder), "--no-late"], cwd=tmp, timeout=timeout)
    cli([*TINY, "review", str(kb), "--checklist", str(checklist)], cwd=tmp, timeout=timeout)
    return kb, checklist


def export(tmp: Path, kb: Path, checklist: Path, out: Path, timeout: float) -> Run:
    return cli(["review", str(kb), "--checklist", str(checklist), "--export", str(out)], cwd=tmp, timeout=timeout)


def leftovers(folder: Path, expected: set[str]) -> list[str]:
    """What lies in ``folder`` besides ``expected``: a temporary file left behind would show here."""
    return sorted(p.name for p in folder.iterdir() if p.name not in expected and p.name != ".time")


def case_csv_formula(tmp: Path, timeout: float) -> Outcome:
    kb, checklist = reviewed_kb(tmp, {
        "a.txt": '=HYPERLINK("http://127.0.0.1:9","x") The budget is 5,000 USD.\n+SUM(1+1) The budget is 7,000 USD.\n',
        "b.md": "# =cmd|' /C calc'!A0\n\nThe budget is 6,000 USD.\n",
    }, timeout)  # fmt: skip
    run = export(tmp, kb, checklist, tmp / "r.csv", timeout)
    import csv

    with (tmp / "r.csv").open(encoding="utf-8", newline="") as fh:
        lines = list(csv.reader(fh))[1:] if run.code == 0 else []
    cells = [cell for line in lines for cell in line]
    formulas = [cell for cell in cells if cell.startswith(FORMULA_START)]
    shown = [c[:24] for c in cells if c.startswith("'")][:4]
    result = (f"{summary(run, keep=1)}; {len(lines)} rows, {len(formulas)} cells starting = + - @ tab CR; prefixed:"
              f" {shown}")  # fmt: skip
    return Outcome("CSV formula injection: quotes and a title starting = + (tiny model review)",
                   "review KB --checklist c.toml --export r.csv", result, run.seconds, run.rss_mb)  # fmt: skip


def case_temp_link(tmp: Path, timeout: float) -> Outcome:
    kb, checklist = reviewed_kb(tmp, {"a.txt": "The budget is 5,000 USD.\nThe budget is 7,000 USD.\n"}, timeout)
    secret = tmp / "v"
    secret.write_text("SECRET\n")
    (tmp / "r.html.partial").symlink_to(secret)
    (tmp / "s.html").symlink_to(tmp / "elsewhere.html")
    run = export(tmp, kb, checklist, tmp / "r.html", timeout)
    other = export(tmp, kb, checklist, tmp / "s.html", timeout)
    left = leftovers(tmp, {"docs", "k.kb", "c.toml", "v", "r.html", "r.html.partial", "s.html"})
    result = (f"{summary(run, keep=1)}; v holds {secret.read_text().strip()!r}; r.html a link: "
              f"{(tmp / 'r.html').is_symlink()}; a link at s.html: {summary(other, keep=1)}, s.html a link:"
              f" {(tmp / 's.html').is_symlink()}, elsewhere.html written: {(tmp / 'elsewhere.html').exists()};"
              f" other files: {left}")  # fmt: skip
    return Outcome("a link planted at OUT.partial (to a file holding SECRET) and at OUT itself",
                   "ln -s v r.html.partial; review KB … --export r.html", result, run.seconds, run.rss_mb)  # fmt: skip


def case_docx_control(tmp: Path, timeout: float) -> Outcome:
    kb, checklist = reviewed_kb(tmp, {"b.txt": "The budget is 5,000 USD \x1b[31m.\nThe budget is 6,000 USD.\n"},
                                timeout)  # fmt: skip
    first = export(tmp, kb, checklist, tmp / "r.docx", timeout)
    marked = cli(["mark", str(kb), str(checklist), "budget", "to_check", "--note", "x\x07\udcff"], cwd=tmp,
                 timeout=timeout)  # fmt: skip
    run = export(tmp, kb, checklist, tmp / "m.docx", timeout)
    import docx

    cells = [c.text for t in docx.Document(str(tmp / "m.docx")).tables for r in t.rows for c in r.cells]
    note = next((c for c in cells if c.startswith("to check")), "?")
    result = (f"document text with ESC: {summary(first, keep=1)}; mark --note $'x\\x07\\xff':"
              f" {summary(marked, keep=1)}; export {summary(run, keep=1)}; python-docx reads it, the mark cell:"
              f" {note!r}")  # fmt: skip
    return Outcome("a control character in a document's text and in a note (and a byte not UTF-8)",
                   "review KB … --export r.docx; mark KB c.toml budget to_check --note …", result, run.seconds,
                   run.rss_mb)  # fmt: skip


def _items(n: int) -> str:
    return "".join(f'[[items]]\nid="i{i}"\nlabel="I"\nkind="text"\nquestion.en="Q?"\n' for i in range(n))


def _checklist_run(tmp: Path, kb: Path, name: str, text: str, timeout: float) -> Run:
    path = tmp / name
    path.write_text(text, encoding="utf-8")
    return export(tmp, kb, path, tmp / "r.md", timeout)


def _plain_kb(tmp: Path, timeout: float) -> Path:
    (tmp / "a.txt").write_text("The budget is 5,000 USD.\n")
    cli([*ENC, "ingest", str(tmp / "k.kb"), str(tmp / "a.txt"), "--no-late"], cwd=tmp, timeout=timeout)
    return tmp / "k.kb"


def case_checklist_items(tmp: Path, timeout: float) -> Outcome:
    kb = _plain_kb(tmp, timeout)
    parts = []
    for n in (1_000, 2_000, 4_000, 13_500):
        run = _checklist_run(tmp, kb, f"c{n}.toml", _items(n), timeout)
        size = (tmp / f"c{n}.toml").stat().st_size // 1024
        parts.append(f"{n:,} items ({size} KB): {run.seconds:.1f} s, {run.rss_mb:.0f} MB, {summary(run, keep=1)}")
    case = "checklists of 1k, 2k, 4k and 13.5k items (once quadratic: 1.0 / 3.8 / 16.0 / 192 s)"
    return Outcome(case, "review KB --checklist cN.toml --export r.md", " / ".join(parts), run.seconds, run.rss_mb)


def case_long_question(tmp: Path, timeout: float) -> Outcome:
    kb = _plain_kb(tmp, timeout)
    text = BUDGET_CHECKLIST.replace('question.en = "What is the budget?"', f'question.en = "{"budget? " * 125_000}"')
    (tmp / "c.toml").write_text(text, encoding="utf-8")
    run = cli([*TINY, "review", str(kb), "--checklist", str(tmp / "c.toml")], cwd=tmp, timeout=timeout)
    case = "a 1 MB question in a checklist (once 110 s and 1.78 GB, then the model's context overflowed)"
    return Outcome(case, "review KB --checklist c.toml (tiny model)", summary(run, keep=1), run.seconds, run.rss_mb)


def case_deep_toml(tmp: Path, timeout: float) -> Outcome:
    kb = _plain_kb(tmp, timeout)
    runs = [
        _checklist_run(tmp, kb, "deep.toml", "a = " + "[" * 100_000 + "]" * 100_000 + "\n", timeout),
        _checklist_run(tmp, kb, "dotted.toml", "a" + ".a" * 400_000 + " = 1\n", timeout),
    ]
    result = " / ".join(f"{summary(run, keep=1)} ({run.seconds:.1f} s)" for run in runs)
    return Outcome("deeply nested TOML (100,000 [ ), and a key of 400,000 dotted parts",
                   "review KB --checklist deep.toml --export r.md", result, max(r.seconds for r in runs),
                   max(r.rss_mb for r in runs))  # fmt: skip


def case_markdown_html(tmp: Path, timeout: float) -> Outcome:
    kb, checklist = reviewed_kb(tmp, {
        "c.md": "# Budget | <b>notes</b>\n\nThe budget is 5,000 USD <script>alert(1)</script> | x.\n\n"
                "The budget is 6,000 USD <img src=x onerror=alert(2)>.\n",
    }, timeout)  # fmt: skip
    run = export(tmp, kb, checklist, tmp / "r.md", timeout)
    text = (tmp / "r.md").read_text(encoding="utf-8") if run.code == 0 else ""
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    widths = sorted({len(re.split(r"(?<!\\)\|", row)) - 2 for row in rows})
    tags = re.findall(r"<(?!br>)[a-zA-Z/][^>]*>", text)
    escaped = " ".join(f"`{e}`" for e in ("&lt;script&gt;", "&lt;img", "\\|") if e in text)
    result = (f"{summary(run, keep=1)}; raw tags (but the report's own line breaks): {tags}; written escaped:"
              f" {escaped}; cells per row: {widths}")  # fmt: skip
    return Outcome("raw HTML (`<script>`, `<img onerror>`) and `|` in a title and a quote",
                   "review KB … --export r.md", result, run.seconds, run.rss_mb)  # fmt: skip


def case_export_full_disk(tmp: Path, timeout: float) -> Outcome:
    kb, checklist = reviewed_kb(tmp, {"a.txt": "The budget is 5,000 USD.\nThe budget is 7,000 USD.\n"}, timeout)
    disk = tmp / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        return Outcome("a full disk while the report is written", "-", "could not mount a tmpfs here: "
                       + mounted.stderr.decode().strip())  # fmt: skip
    try:
        with (disk / "filler").open("wb", buffering=0) as fh:
            try:
                while True:
                    fh.write(b"\0" * 512)
            except OSError:
                pass
        run = export(tmp, kb, checklist, disk / "r.html", timeout)
        left = sorted(p.name for p in disk.iterdir())
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
    return Outcome("a full disk (a 64 KB tmpfs, filled) while the report is written",
                   "review KB … --export disk/r.html", f"{summary(run, keep=1)}; files on that disk: {left}",
                   run.seconds, run.rss_mb)  # fmt: skip


def case_export_modes(tmp: Path, timeout: float) -> Outcome:
    old = os.umask(0o022)
    try:
        kb, checklist = reviewed_kb(tmp, {"a.txt": "The budget is 5,000 USD.\nThe budget is 7,000 USD.\n"}, timeout)
        runs = [export(tmp, kb, checklist, tmp / f"r.{fmt}", timeout) for fmt in ("md", "csv", "html", "docx")]
    finally:
        os.umask(old)
    modes = {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in [kb, *sorted(tmp.glob("r.*"))]}
    return Outcome("the reports' permissions (umask 022)", "review KB … --export r.{md,csv,html,docx}; stat",
                   f"exits {[r.code for r in runs]}; modes {modes}", runs[-1].seconds, runs[-1].rss_mb)  # fmt: skip


def case_damaged_reader(tmp: Path, timeout: float) -> Outcome:
    docs = tmp / "docs"
    docs.mkdir()
    for i in range(8):
        (docs / f"report{i}.md").write_text(f"# Report {i}\n\n" + "\n\n".join(
            f"Paragraph {n} of report {i}: pump {n * i} is serviced as part {n} of the manual says. " * 3
            for n in range(60)))  # fmt: skip
    sound, kb = tmp / "sound.kb", tmp / "damaged.kb"
    cli([*ENC, "ingest", str(sound), str(docs), "--no-late"], cwd=tmp, timeout=timeout)
    flip_middle_pages(sound, kb, ("chunks_fts_data",))
    found = cli(["search", str(kb), "pump serviced", "--mode", "bm25"], cwd=tmp, timeout=timeout)
    listed = cli(["docs", str(kb)], cwd=tmp, timeout=timeout)
    lines = [line[:90] for line in found.stderr.strip().splitlines()]
    result = (f"search meeting the damaged page: exit {found.code}, {len(lines)} line(s) on stderr: {lines}; docs:"
              f" exit {listed.code}, {len(listed.stderr.strip().splitlines())} line(s) on stderr")  # fmt: skip
    return Outcome("a reader of a damaged KB (the full-text index's middle page flipped)", "search KB …; docs KB",
                   result, found.seconds, found.rss_mb)  # fmt: skip


def case_failed_name(tmp: Path, timeout: float) -> Outcome:
    folder = tmp / "docs"
    folder.mkdir()
    (folder / "good\n  99  ready.txt").write_text("The deposit is due.\n")
    (folder / "bad\n  99  ready.pdf").write_bytes(b"%PDF-1.4 broken")
    kb = tmp / "k.kb"
    run = cli([*ENC, "ingest", str(kb), str(folder), "--no-late"], cwd=tmp, timeout=timeout)
    listed = cli(["docs", str(kb)], cwd=tmp, timeout=timeout)
    shown = [line.strip().replace(str(tmp), "…") for line in (run.stdout + listed.stdout).splitlines() if "99" in line]
    return Outcome("a newline (and two spaces) in the names of a good and a failed file", "ingest KB docs; docs KB",
                   f"names as printed: {shown}", run.seconds, run.rss_mb)  # fmt: skip


def case_docx_runs_chunks(tmp: Path, timeout: float) -> Outcome:
    from tests.support.hostile_office import docx_of_runs

    (tmp / "runs.docx").write_bytes(docx_of_runs(2_000_000))
    kb = tmp / "k.kb"
    ingest = cli([*ENC, "ingest", str(kb), str(tmp / "runs.docx"), "--no-late"], cwd=tmp, timeout=timeout)
    import apsw

    conn = apsw.Connection(str(kb), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        n, longest = conn.execute("SELECT count(*), max(length(text)) FROM chunks").fetchall()[0]
    finally:
        conn.close()
    question = ["ask", "What does the document say about the deposit?", "--mode", "naive"]
    run = cli([*TINY, question[0], str(kb), *question[1:]], cwd=tmp, timeout=timeout)
    prose = tmp / "prose.txt"  # the same question of ordinary text, under the same load, for comparison
    clause = "Clause {}. The supplier pays a deposit of {} percent and delivers the goods on time."
    prose.write_text("\n\n".join(clause.format(n, n) for n in range(400)))
    cli([*ENC, "ingest", str(tmp / "prose.kb"), str(prose), "--no-late"], cwd=tmp, timeout=timeout)
    plain = cli([*TINY, question[0], str(tmp / "prose.kb"), *question[1:]], cwd=tmp, timeout=timeout)
    result = (f"ingest {summary(ingest, keep=1, pattern='Ingested')}; {n:,} chunks, the longest {longest:,}"
              f" characters; ask {summary(run, keep=1)} in {run.seconds:.1f} s; the same ask of a KB of ordinary"
              f" prose: {summary(plain, keep=1)} in {plain.seconds:.1f} s")  # fmt: skip
    return Outcome("a .docx paragraph of 2 M one-letter runs, then ask (tiny model; once one 2,000,000-character chunk"
                   " and 118 s)", "ingest KB runs.docx; ask KB …", result, run.seconds, run.rss_mb)  # fmt: skip


CASES: dict[str, Callable[[Path, float], Outcome]] = {
    "certificate_pdf": case_certificate_pdf,
    "aes_pdf": case_aes_pdf,
    "two_same": case_two_same,
    "two_different": case_two_different,
    "shared_stream_pdf": case_shared_stream_pdf,
    "one_line_txt": case_one_line_txt,
    "iso": case_iso,
    "cwd_toml": case_cwd_toml,
    "symlink_out": case_symlink_out,
    "fifo_and_loop": case_fifo_and_loop,
    "escapes": case_escapes,
    "broken_pdf": case_broken_pdf,
    "permissions": case_permissions,
    "drip": case_drip,
    "nested": case_nested,
    "redirect": case_redirect,
    "unbounded": case_unbounded,
    "fuzz": case_fuzz,
    "links_named": case_links_named,
    "swap_after_discovery": case_swap_after_discovery,
    "kb_link": case_kb_link,
    "docx_many_runs": case_docx_many_runs,
    "docx_huge_text": case_docx_huge_text,
    "xlsx_last_column": case_xlsx_last_column,
    "xlsx_all_rows": case_xlsx_all_rows,
    "docx_late_doctype": case_docx_late_doctype,
    "damaged_kb": case_damaged_kb,
    "error_escape": case_error_escape,
    "localhost_name": case_localhost_name,
    "control_names": case_control_names,
    "network": case_network,
    "config_help": case_config_help,
    "csv_formula": case_csv_formula,
    "temp_link": case_temp_link,
    "docx_control": case_docx_control,
    "checklist_items": case_checklist_items,
    "long_question": case_long_question,
    "deep_toml": case_deep_toml,
    "markdown_html": case_markdown_html,
    "export_full_disk": case_export_full_disk,
    "export_modes": case_export_modes,
    "damaged_reader": case_damaged_reader,
    "failed_name": case_failed_name,
    "docx_runs_chunks": case_docx_runs_chunks,
}


def cpu_flags() -> str:
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return "?"
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni")
    return " ".join(f for f in flags.split() if f in wanted)


def write_section(
    out: Path, outcomes: list[Outcome], command: str, timeout: float, section: str = "bench_reliability"
) -> None:
    begin, end = f"<!-- {section}:begin -->", f"<!-- {section}:end -->"
    title = SECTIONS.get(section, "Hostile and heavy input, re-run")
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())  # fmt: skip
    lines = [
        begin,
        f"## {title}",
        "",
        f"`{command}` on {model}, {os.cpu_count()} CPUs ({cpu_flags()}), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC;"
        f" every run under a {timeout:.0f} s timeout; peak RSS of the pikelocal process by `/usr/bin/time`.",
        "",
        "| case | command | outcome | s | peak RSS MB |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        case, command, result = (x.replace("|", "\\|").replace("\n", " ") for x in (o.case, o.command, o.result))
        rss = f"{o.rss_mb:,.0f}" if o.rss_mb else "-"
        lines.append(f"| {case} | `{command}` | {result} | {o.seconds:.1f} | {rss} |")
    lines.append(end)
    text = out.read_text(encoding="utf-8") if out.exists() else "# Reliability\n\n"
    if begin in text:
        head, rest = text.split(begin, 1)
        text = head + "\n".join(lines) + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
    out.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "RELIABILITY.md")
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="run only these cases")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pikelocal run")
    parser.add_argument("--section", choices=sorted(SECTIONS), default="bench_reliability", help="which section")
    args = parser.parse_args()
    outcomes = []
    for name in args.only or list(CASES):
        with tempfile.TemporaryDirectory(prefix=f"pikelocal-{name}-") as tmp:
            try:
                outcome = CASES[name](Path(tmp), args.timeout)
            except Exception as exc:  # a case that cannot even be set up is reported, not fatal
                outcome = Outcome(name, "-", f"the case could not run: {type(exc).__name__}: {exc}")
        print(f"{outcome.case}: {outcome.result} ({outcome.seconds:.1f} s, {outcome.rss_mb:,.0f} MB)", flush=True)
        outcomes.append(outcome)
    command = "python build/bench/bench_reliability.py " + " ".join(sys.argv[1:])
    write_section(args.out, outcomes, command, args.timeout, args.section)
    return 0


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    sys.exit(main())
