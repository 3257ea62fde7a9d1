"""build/models.py: assembly from wheels, checksum refusal, idempotence. Uses local fake wheels, no network."""

from __future__ import annotations

import hashlib
import json
import subprocess
import zipfile
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.build_scripts import load_build_script


def make_wheel(folder: Path, package: str, version: str, member: str, data: bytes) -> None:
    name = f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(folder / name, "w") as zf:
        zf.writestr(member, data)


@pytest.fixture()
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module = load_build_script("models")
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    monkeypatch.setattr(module, "WHEELS", wheels)

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("pip download must not run when the wheels are present")

    monkeypatch.setattr(module.subprocess, "run", no_network)
    return module


def write_manifest(folder: Path, parts: list[bytes], sha: str) -> None:
    sources = [
        {"package": f"toy-part{i}", "version": "1.0", "member": f"toy_part{i}/data/part{i:02d}.bin"}
        for i in range(1, len(parts) + 1)
    ]
    art = {
        "id": "toy",
        "role": "llm-tiny",
        "kind": "gguf",
        "path": "toy.gguf",
        "size": sum(map(len, parts)),
        "sha256": sha,
        "licence": "test",
        "assemble": "concat",
        "sources": sources,
    }
    folder.mkdir(exist_ok=True)
    (folder / "manifest.json").write_text(json.dumps({"format": 1, "artifacts": [art]}))


def test_concatenates_parts_in_order_and_verifies(
    build: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts = [b"GGUF" + b"a" * 100, b"b" * 100, b"c" * 7]
    for i, data in enumerate(parts, 1):
        make_wheel(build.WHEELS, f"toy-part{i}", "1.0", f"toy_part{i}/data/part{i:02d}.bin", data)
    models = tmp_path / "models"
    write_manifest(models, parts, hashlib.sha256(b"".join(parts)).hexdigest())
    assert build.main(["--models-dir", str(models)]) == 0
    assert (models / "toy.gguf").read_bytes() == b"".join(parts)
    assert build.main(["--models-dir", str(models)]) == 0  # second run: nothing to do
    assert "installed and verified" in capsys.readouterr().out.splitlines()[-1]
    assert build.main(["--models-dir", str(models), "--check"]) == 0


def test_checksum_mismatch_is_refused_and_leaves_nothing(
    build: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parts = [b"GGUF" + b"x" * 50]
    make_wheel(build.WHEELS, "toy-part1", "1.0", "toy_part1/data/part01.bin", parts[0])
    models = tmp_path / "models"
    write_manifest(models, parts, "0" * 64)
    assert build.main(["--models-dir", str(models)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("Error: checksum mismatch for toy.gguf") and "\n" not in err
    assert not list(models.glob("toy.gguf*"))


def test_missing_member_names_the_wheel(build: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    make_wheel(build.WHEELS, "toy-part1", "1.0", "something/else.bin", b"GGUF")
    models = tmp_path / "models"
    write_manifest(models, [b"GGUF"], hashlib.sha256(b"GGUF").hexdigest())
    assert build.main(["--models-dir", str(models)]) == 1
    assert "toy_part1-1.0-py3-none-any.whl: cannot read toy_part1/data/part01.bin" in capsys.readouterr().err


def test_update_sum_rerecords_one_file_only(build: ModuleType, tmp_path: Path) -> None:
    """Re-syncing encoder.json must never re-bless another file's changed bytes."""
    (tmp_path / "model.onnx").write_bytes(b"good model")
    (tmp_path / "encoder.json").write_text("{}")
    build.record_sums(tmp_path, ["model.onnx", "encoder.json"])
    good = (tmp_path / build.SUMS_NAME).read_text()
    (tmp_path / "model.onnx").write_bytes(b"corrupted!")
    (tmp_path / "encoder.json").write_text('{"id": "x"}')
    build.update_sum(tmp_path, "encoder.json")
    sums = dict(reversed(line.split("  ")) for line in (tmp_path / build.SUMS_NAME).read_text().splitlines())
    assert sums["model.onnx"] == hashlib.sha256(b"good model").hexdigest()
    assert sums["encoder.json"] == hashlib.sha256(b'{"id": "x"}').hexdigest()
    assert good != (tmp_path / build.SUMS_NAME).read_text()


def test_many_versions_of_one_package_are_all_downloaded(
    build: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """EmbeddingGemma's archive is 25 versions of one package; pip takes one version of a name per call."""
    calls: list[list[str]] = []

    def fake_pip(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess:
        reqs = cmd[cmd.index("-d") + 2 :]
        calls.append(reqs)
        for req in reqs:
            name, version = req.split("==")
            make_wheel(build.WHEELS, name, version, f"{name.replace('-', '_')}/chunk.bin", req.encode())
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(build.subprocess, "run", fake_pip)
    sources = [{"package": "toy-archive", "version": f"0.2.{n}", "member": "toy_archive/chunk.bin"} for n in (1, 2, 3)]
    sources.append({"package": "toy-other", "version": "1.0", "member": "toy_other/chunk.bin"})
    expected = b"".join(f"{s['package']}=={s['version']}".encode() for s in sources)
    target = tmp_path / "out.bin"
    build.assemble(sources, target, len(expected), hashlib.sha256(expected).hexdigest())
    assert target.read_bytes() == expected
    assert all(len({r.split("==")[0] for r in reqs}) == len(reqs) for reqs in calls)  # one version per name
    assert sorted(r for reqs in calls for r in reqs) == sorted(f"{s['package']}=={s['version']}" for s in sources)
