"""Model manifest, checksum verification with its stamp cache, and model resolution."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pikelocal import assets
from pikelocal.domain.errors import ConfigError, ModelError

PAYLOAD = b"GGUF" + bytes(range(256)) * 40


def make_models_dir(tmp_path: Path, payload: bytes = PAYLOAD) -> Path:
    folder = tmp_path / "models"
    folder.mkdir()
    spec = {
        "id": "toy-llm",
        "role": "llm-default",
        "kind": "gguf",
        "path": "toy.gguf",
        "size": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "licence": "test",
        "assemble": "concat",
        "sources": [],
    }
    enc = {
        "id": "toy-enc",
        "role": "encoder-default",
        "kind": "onnx-encoder",
        "path": "enc",
        "licence": "test",
        "assemble": "files",
        "files": [{"path": "encoder.json"}],
    }
    (folder / "manifest.json").write_text(json.dumps({"format": 1, "artifacts": [spec, enc]}))
    return folder


def test_missing_then_verified_then_stamped(tmp_path: Path) -> None:
    folder = make_models_dir(tmp_path)
    manifest = assets.load_manifest(folder)
    art = manifest.find("llm-default")
    assert art is not None
    assert assets.check_artifact(manifest, art).state == "missing"
    (folder / "toy.gguf").write_bytes(PAYLOAD)
    assert assets.check_artifact(manifest, art).state == "verified"
    stamp = json.loads((folder / assets.STAMP_NAME).read_text())
    assert stamp["toy.gguf"]["sha256"] == art.files[0].sha256


def test_truncated_and_tampered_files_are_corrupt(tmp_path: Path) -> None:
    folder = make_models_dir(tmp_path)
    manifest = assets.load_manifest(folder)
    art = manifest.find("toy-llm")
    assert art is not None
    target = folder / "toy.gguf"
    target.write_bytes(PAYLOAD[:100])
    status = assets.check_artifact(manifest, art)
    assert status.state == "corrupt" and "truncated" in status.detail and str(target) in status.detail
    # Same size, different bytes: the stamp of the good file must not hide it once mtime changes …
    target.write_bytes(PAYLOAD)
    assert assets.check_artifact(manifest, art).state == "verified"
    target.write_bytes(PAYLOAD[:-1] + b"\x00")
    status = assets.check_artifact(manifest, art)
    assert status.state == "corrupt" and "sha256 mismatch" in status.detail
    # … and a full check re-hashes even when the stamp's size and mtime match (tampering that kept them).
    target.write_bytes(PAYLOAD)
    assets.check_artifact(manifest, art)
    target.write_bytes(PAYLOAD[:-1] + b"\x00")
    stamps = json.loads((folder / assets.STAMP_NAME).read_text())
    stamps["toy.gguf"]["mtime_ns"] = target.stat().st_mtime_ns
    (folder / assets.STAMP_NAME).write_text(json.dumps(stamps))
    assert assets.check_artifact(manifest, art).state == "verified"  # trusted stamp (fast path)
    assert assets.check_artifact(manifest, art, full=True).state == "corrupt"


@pytest.mark.parametrize("stamps", ["[]", "null", '{"toy.gguf": "stale"}', '{"toy.gguf": 1}'])
def test_damaged_stamp_file_only_costs_a_rehash(tmp_path: Path, stamps: str) -> None:
    # Valid JSON of the wrong shape used to raise AttributeError (``.get`` on a list, str or int).
    folder = make_models_dir(tmp_path)
    manifest = assets.load_manifest(folder)
    art = manifest.find("toy-llm")
    assert art is not None
    (folder / "toy.gguf").write_bytes(PAYLOAD)
    (folder / assets.STAMP_NAME).write_text(stamps)
    assert assets.check_artifact(manifest, art).state == "verified"
    assert json.loads((folder / assets.STAMP_NAME).read_text())["toy.gguf"]["sha256"] == art.files[0].sha256


def test_sums_file_supplies_checksums_of_built_files(tmp_path: Path) -> None:
    folder = make_models_dir(tmp_path)
    manifest = assets.load_manifest(folder)
    art = manifest.find("toy-enc")
    assert art is not None
    (folder / "enc").mkdir()
    (folder / "enc" / "encoder.json").write_text('{"id": "toy-enc", "dim": 4, "max_tokens": 8}')
    assert assets.check_artifact(manifest, art).state == "corrupt"  # no checksum recorded yet
    digest = hashlib.sha256((folder / "enc" / "encoder.json").read_bytes()).hexdigest()
    (folder / "enc" / assets.SUMS_NAME).write_text(f"{digest}  encoder.json\n")
    assert assets.check_artifact(manifest, art).state == "verified"
    assert assets.resolve_encoder_dir("default", folder) == folder / "enc"
    assert assets.read_encoder_info(folder / "enc") == assets.EncoderInfo("toy-enc", 4, 8)


def test_resolution_errors_are_one_line_and_name_the_thing(tmp_path: Path) -> None:
    folder = make_models_dir(tmp_path)
    with pytest.raises(ModelError, match="not installed .* run `make models`"):
        assets.resolve_gguf("default", folder)
    with pytest.raises(ModelError, match="/nowhere/model.gguf: GGUF model file not found"):
        assets.resolve_gguf("/nowhere/model.gguf", folder)
    with pytest.raises(ConfigError, match="llm.model = 'nonsense'.*toy-llm"):
        assets.resolve_gguf("nonsense", folder)
    with pytest.raises(ModelError, match="manifest not found"):
        assets.load_manifest(tmp_path / "empty")
    (folder / "toy.gguf").write_bytes(PAYLOAD[:10])
    with pytest.raises(ModelError, match="failed verification") as err:
        assets.resolve_gguf("default", folder)
    assert "\n" not in str(err.value)


def test_committed_manifest_is_complete() -> None:
    manifest = assets.load_manifest(Path(__file__).resolve().parent.parent / "models")
    roles = {a.role for a in manifest.artifacts}
    assert {"llm-default", "llm-tiny", "encoder-default", "encoder-english"} <= roles
    for art in manifest.artifacts:
        assert art.licence and art.licence != "unknown"
        if art.kind == "gguf":
            assert len(art.files[0].sha256 or "") == 64 and art.spec["sources"]


def test_models_inside_a_python_package_are_verified_where_pip_put_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = make_models_dir(tmp_path)
    site = tmp_path / "site"
    (site / "toyocr" / "models").mkdir(parents=True)
    (site / "toyocr" / "__init__.py").write_text("")
    weights = {"det": b"det" * 100, "rec": b"rec" * 200}
    files = []
    for task, data in weights.items():
        (site / "toyocr" / "models" / f"{task}.onnx").write_bytes(data)
        files.append(
            {"path": f"{task}.onnx", "task": task, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
        )
    manifest_path = folder / "manifest.json"
    spec = json.loads(manifest_path.read_text())
    spec["artifacts"].append(
        {
            "id": "toy-ocr",
            "role": "ocr",
            "kind": "onnx-ocr",
            "path": "toyocr/models",
            "package": "toyocr",
            "version": "1.0",
            "licence": "test",
            "assemble": "package",
            "files": files,
        }  # fmt: skip
    )
    manifest_path.write_text(json.dumps(spec))
    manifest = assets.load_manifest(folder)
    art = manifest.find("ocr")
    assert art is not None
    status = assets.check_artifact(manifest, art)  # the package is not importable yet
    assert status.state == "missing" and "toyocr==1.0 is not installed" in status.detail
    monkeypatch.syspath_prepend(str(site))
    assert assets.check_artifact(manifest, art).state == "verified"
    assert assets.resolve_ocr_models(folder) == {t: site / "toyocr" / "models" / f"{t}.onnx" for t in weights}
    assert not (folder / "toyocr").exists()  # nothing copied into the models folder
    stamps = json.loads((folder / assets.STAMP_NAME).read_text())
    assert str(site / "toyocr" / "models" / "det.onnx") in stamps  # keyed by where the file is
    (site / "toyocr" / "models" / "rec.onnx").write_bytes(b"REC" * 200)  # same size, other bytes
    status = assets.check_artifact(manifest, art, full=True)
    assert status.state == "corrupt" and "sha256 mismatch" in status.detail
    with pytest.raises(ModelError, match="failed verification.*run `make setup`"):
        assets.resolve_ocr_models(folder)


def test_the_committed_manifest_lists_the_ocr_models_of_the_installed_rapidocr() -> None:
    manifest = assets.load_manifest(Path(__file__).resolve().parent.parent / "models")
    art = manifest.find("ocr")
    assert art is not None and art.package == "rapidocr"
    assert {f["task"] for f in art.spec["files"]} == {"det", "cls", "rec"}
    assert all(len(f.sha256 or "") == 64 for f in art.files)
    if assets.package_folder("rapidocr") is not None:
        assert assets.check_artifact(manifest, art, full=True).state == "verified"
