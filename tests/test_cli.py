"""CLI: help, models listing, one-line errors with exit codes and no traceback, lazy imports."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from pikelocal.cli import cli
from pikelocal.domain.documents import NewChunk
from pikelocal.store.store import Store
from tests.support.cli import assert_one_line_error, run_cli
from tests.support.paths import installed_model
from tests.support.standin_server import StandinServer


def write_toy_manifest(folder: Path, *, size: int, sha256: str = "0" * 64) -> None:
    """A models folder with one GGUF artifact; by default its checksum matches no file."""
    art = {
        "id": "toy",
        "role": "llm-default",
        "kind": "gguf",
        "path": "toy.gguf",
        "size": size,
        "sha256": sha256,
        "licence": "test",
        "sources": [],
    }
    (folder / "manifest.json").write_text(json.dumps({"format": 1, "artifacts": [art]}))


def toy_encoder(folder: Path) -> str:
    """An encoder folder that resolves (encoder.json only); enough for steps before the model loads."""
    encoder = folder / "enc"
    encoder.mkdir()
    (encoder / "encoder.json").write_text('{"id": "toy", "dim": 8, "max_tokens": 16}')
    return str(encoder)


def test_help_lists_the_commands() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for command in ("models", "doctor", "demo"):
        assert command in result.output


def test_models_lists_states_and_how_to_use_own_files(tmp_path: Path) -> None:
    write_toy_manifest(tmp_path, size=4)
    proc = run_cli("models", env={"PIKELOCAL_MODELS_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert (
        "missing" in proc.stdout and "make models" in proc.stdout and "--llm-model /path/to/model.gguf" in proc.stdout
    )


def test_missing_model_file_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("--llm-model", str(tmp_path / "nope.gguf"), "demo", str(tmp_path / "d.kb"))
    assert_one_line_error(proc, 3, "nope.gguf: GGUF model file not found")


def test_unknown_setting_is_one_line_with_a_suggestion(tmp_path: Path) -> None:
    proc = run_cli("models", env={"PIKELOCAL_LLM_MODLE": "x"}, cwd=tmp_path)
    assert_one_line_error(proc, 2, "PIKELOCAL_LLM_MODLE", "did you mean 'llm.model'")


def test_corrupt_installed_model_is_refused(tmp_path: Path) -> None:
    (tmp_path / "toy.gguf").write_bytes(b"GGUF....")
    write_toy_manifest(tmp_path, size=8)
    encoder = toy_encoder(tmp_path)
    proc = run_cli("--encoder", encoder, "demo", str(tmp_path / "d.kb"), env={"PIKELOCAL_MODELS_DIR": str(tmp_path)})
    assert_one_line_error(proc, 3, "model 'toy' failed verification", "sha256 mismatch")


@pytest.mark.parametrize("kind", ["directory", "text", "random"])
def test_doctor_reports_unusable_kb_files(tmp_path: Path, kind: str) -> None:
    kb = tmp_path / "kb.sqlite"
    if kind == "directory":
        kb.mkdir()
    elif kind == "text":
        kb.write_text("these are not the bytes of a database\n" * 100)
    else:
        kb.write_bytes(os.urandom(8192))
    proc = run_cli("doctor", str(kb))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr + proc.stdout
    fail_lines = [line for line in proc.stdout.splitlines() if "FAIL" in line and str(kb) in line]
    assert fail_lines, proc.stdout


def test_importing_the_api_loads_no_heavy_library() -> None:
    code = (
        "import sys, pikelocal.api; heavy = {'textual', 'click', 'llama_cpp', 'onnxruntime', 'pypdf'};"
        "print(sorted({m.split('.')[0] for m in sys.modules} & heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_demo_refuses_to_overwrite_a_file_it_did_not_make(tmp_path: Path) -> None:
    encoder = toy_encoder(tmp_path)
    precious = tmp_path / "contract.pdf"
    precious.write_bytes(b"%PDF-1.7 precious")
    proc = run_cli("--encoder", encoder, "demo", str(precious))
    assert_one_line_error(proc, 6, "contract.pdf exists and is not a demo knowledge base")
    assert precious.read_bytes() == b"%PDF-1.7 precious"


def demo_against_server(url: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`pikelocal demo` with the HTTP backend at ``url`` (a toy encoder: the LLM call is what fails). The line
    naming the server, which every command that sends text to one prints first, is checked and taken off stderr."""
    args = ("--llm-backend", "openai", "--llm-url", url, "--llm-model", "m", "--encoder", toy_encoder(tmp_path))
    proc = run_cli(*args, "demo", str(tmp_path / "d.kb"))
    named, _, rest = proc.stderr.partition("\n")
    assert named.startswith(f"LLM server: {url} "), proc.stderr
    proc.stderr = rest
    return proc


def test_llm_server_down_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    proc = demo_against_server(url, tmp_path)
    assert_one_line_error(proc, 4, f"cannot reach LLM server at {url}")


def test_llm_server_answering_garbage_is_one_line(tmp_path: Path) -> None:
    with StandinServer(mode="garbage") as server:
        proc = demo_against_server(server.url, tmp_path)
    assert_one_line_error(proc, 4, server.url)


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    proc = run_cli("--debug", "--llm-model", str(tmp_path / "nope.gguf"), "demo", str(tmp_path / "d.kb"))
    assert proc.returncode != 0 and "Traceback" in proc.stderr and "ModelError" in proc.stderr


@pytest.mark.slow
def test_truncated_gguf_is_one_line(tmp_path: Path) -> None:
    source = installed_model("smollm2-135m-instruct-q4_1.gguf")
    truncated = tmp_path / "truncated.gguf"
    with source.open("rb") as fh:
        truncated.write_bytes(fh.read(1 << 20))
    proc = run_cli("--llm-model", str(truncated), "--encoder", toy_encoder(tmp_path), "demo", str(tmp_path / "d.kb"))
    assert_one_line_error(proc, 3, "truncated.gguf is not a valid GGUF file")


def test_doctor_on_a_healthy_kb(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    payload = b"GGUF" + b"\0" * 60
    (models / "toy.gguf").write_bytes(payload)
    write_toy_manifest(models, size=len(payload), sha256=hashlib.sha256(payload).hexdigest())
    kb = tmp_path / "kb.sqlite"
    with Store.open(kb, encoder_id="toy-encoder", dim=8) as store:
        doc = store.docs.add_document(path="a.txt", sha256="a" * 64, title="A")
        store.chunks.add_chunks(doc, [NewChunk(ord=0, text="合同金额", char_start=0, char_end=4)])
    proc = run_cli("doctor", str(kb), env={"PIKELOCAL_MODELS_DIR": str(models)})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = {}  # check name -> (mark, value); the mark is "ok", "FAIL" or "" (information)
    for line in proc.stdout.splitlines():
        words = line.split()
        mark = words.pop(0) if words and words[0] in ("ok", "FAIL") else ""
        if len(words) >= 2 and line.startswith(" "):
            rows[words[0]] = (mark, " ".join(words[1:]))
    assert rows["encoder"] == ("", "toy-encoder (8-d)")
    assert rows["integrity"] == ("ok", "ok") and rows["chunks"] == ("", "1")
    assert "llama.cpp" in proc.stdout and "cpu features" in proc.stdout
