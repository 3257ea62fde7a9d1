"""Re-run issue 17's hostile and heavy cases through the real CLI and record what happens: exit code, the lines
that matter, wall time and peak RSS (``/usr/bin/time``). Writes a section of docs/RELIABILITY.md.

    python build/bench_reliability.py [--out docs/RELIABILITY.md] [--only NAME …] [--timeout 120]

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

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MARK_BEGIN, MARK_END = "<!-- bench_reliability:begin -->", "<!-- bench_reliability:end -->"
ENC = ("--encoder", "minilm")


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
}


def cpu_flags() -> str:
    try:
        flags = next(line for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("flags"))
    except (OSError, StopIteration):
        return "?"
    wanted = ("avx2", "avx512f", "avx512_vnni", "avx_vnni")
    return " ".join(f for f in flags.split() if f in wanted)


def write_section(out: Path, outcomes: list[Outcome], command: str, timeout: float) -> None:
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), platform.processor())  # fmt: skip
    lines = [
        MARK_BEGIN,
        "## Hostile and heavy input, re-run (issue 17)",
        "",
        f"`{command}` on {model}, {os.cpu_count()} CPUs ({cpu_flags()}), {datetime.now(UTC):%Y-%m-%d %H:%M} UTC;"
        f" every run under a {timeout:.0f} s timeout; peak RSS of the pikelocal process by `/usr/bin/time`.",
        "",
        "| case | command | outcome | s | peak RSS MB |",
        "|---|---|---|---|---|",
    ]
    for o in outcomes:
        result = o.result.replace("|", "\\|").replace("\n", " ")
        rss = f"{o.rss_mb:,.0f}" if o.rss_mb else "-"
        lines.append(f"| {o.case} | `{o.command}` | {result} | {o.seconds:.1f} | {rss} |")
    lines.append(MARK_END)
    text = out.read_text(encoding="utf-8") if out.exists() else "# Reliability\n\n"
    if MARK_BEGIN in text:
        head, rest = text.split(MARK_BEGIN, 1)
        text = head + "\n".join(lines) + rest.split(MARK_END, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"
    out.write_text(text, encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "RELIABILITY.md")
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="run only these cases")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per pikelocal run")
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
    write_section(args.out, outcomes, "python build/bench_reliability.py " + " ".join(sys.argv[1:]), args.timeout)
    return 0


if __name__ == "__main__":
    socket.setdefaulttimeout(30)
    sys.exit(main())
