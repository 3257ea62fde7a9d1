"""Locate and verify installed models (GGUF, ONNX encoder folders, the OCR models). Never downloads anything.

The committed ``models/manifest.json`` names every artifact with its role, sources, sha256 and licence.
Hashing a 1 GB file takes seconds, so a successful check is remembered in ``models/.verified.json``
keyed by path, size and modification time; ``full=True`` re-hashes regardless.

An artifact with a ``package`` (the OCR models inside the ``rapidocr`` wheel) is verified where pip installed it,
never copied: its paths are relative to the folder holding the package, its stamps keyed by absolute path.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pikelocal.domain.errors import ConfigError, ModelError

log = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.json"
STAMP_NAME = ".verified.json"
SUMS_NAME = "SHA256SUMS"  # written by the build for files whose hash is only known after export

ArtifactState = Literal["verified", "missing", "corrupt"]


@dataclass(frozen=True)
class ArtifactFile:
    path: str  # relative to the models folder
    sha256: str | None  # None: taken from the folder's SHA256SUMS written at build time
    size: int | None


@dataclass(frozen=True)
class Artifact:
    id: str
    role: str
    kind: str  # "gguf" | "onnx-encoder" | "onnx-ocr"
    description: str
    path: str  # file (gguf) or folder (encoder), relative to the models folder (or to the package's folder)
    licence: str
    files: tuple[ArtifactFile, ...]
    spec: Mapping[str, Any]  # the raw manifest entry, for the build script
    package: str | None = None  # the Python package that ships the files (installed by pip, never copied)


@dataclass(frozen=True)
class ArtifactStatus:
    artifact: Artifact
    state: ArtifactState
    detail: str
    size_bytes: int


def default_models_dir() -> Path:
    """``$PIKELOCAL_MODELS_DIR``, else the checkout's ``models/`` (editable install), else a user folder."""
    env = os.environ.get("PIKELOCAL_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    checkout = Path(__file__).resolve().parent.parent / "models"
    if (checkout / MANIFEST_NAME).is_file():
        return checkout
    return Path.home() / ".local" / "share" / "pikelocal" / "models"


def sha256_file(path: Path, chunk_bytes: int = 8 << 20) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk_bytes):
            digest.update(block)
    return digest.hexdigest()


def _artifact_from_spec(spec: Mapping[str, Any]) -> Artifact:
    files: tuple[ArtifactFile, ...]
    if spec["kind"] == "gguf":
        files = (ArtifactFile(spec["path"], spec["sha256"], spec.get("size")),)
    else:
        files = tuple(
            ArtifactFile(f"{spec['path']}/{f['path']}", f.get("sha256"), f.get("size")) for f in spec["files"]
        )
    return Artifact(
        id=spec["id"],
        role=spec["role"],
        kind=spec["kind"],
        description=spec.get("description", ""),
        path=spec["path"],
        licence=spec.get("licence", "unknown"),
        files=files,
        spec=spec,
        package=spec.get("package"),
    )


@dataclass(frozen=True)
class Manifest:
    folder: Path
    artifacts: tuple[Artifact, ...]

    def find(self, name: str) -> Artifact | None:
        """Match an artifact by id, role, or role without its prefix ("default" → llm-default)."""
        for art in self.artifacts:
            if name in (art.id, art.role):
                return art
        return None


def load_manifest(models_dir: Path | None = None) -> Manifest:
    folder = models_dir or default_models_dir()
    path = folder / MANIFEST_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ModelError(f"{path}: model manifest not found (set PIKELOCAL_MODELS_DIR or run `make models`)") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"{path}: cannot read model manifest: {exc}") from exc
    return Manifest(folder, tuple(_artifact_from_spec(a) for a in data["artifacts"]))


def _read_stamps(folder: Path) -> dict[str, Any]:
    try:
        stamps = json.loads((folder / STAMP_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return stamps if isinstance(stamps, dict) else {}  # a damaged stamp file only costs a re-hash


def _write_stamps(folder: Path, stamps: Mapping[str, Any]) -> None:
    tmp = folder / (STAMP_NAME + ".tmp")
    try:
        tmp.write_text(json.dumps(stamps, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(folder / STAMP_NAME)
    except OSError as exc:  # a read-only models folder still works; it just re-hashes next time
        log.debug("cannot write %s: %s", folder / STAMP_NAME, exc)


def _read_sums(folder: Path) -> dict[str, str]:
    sums: dict[str, str] = {}
    try:
        for line in (folder / SUMS_NAME).read_text(encoding="utf-8").splitlines():
            digest, _, name = line.strip().partition("  ")
            if digest and name:
                sums[name] = digest
    except OSError:
        pass
    return sums


def expected_sha256(models_dir: Path, file: ArtifactFile) -> str | None:
    if file.sha256:
        return file.sha256
    rel = Path(file.path)
    return _read_sums(models_dir / rel.parent).get(rel.name)


def package_folder(package: str) -> Path | None:
    """The folder that holds an installed package (its site-packages), found without importing the package."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    return Path(locations[0]).parent if locations else None


def verify_file(
    models_dir: Path, file: ArtifactFile, *, full: bool = False, root: Path | None = None
) -> tuple[ArtifactState, str]:
    """Check one file against its size and sha256, using the stamp cache (in ``models_dir``) unless ``full``.

    ``root``: the folder the file's path is relative to when it is not ``models_dir`` (a package's folder)."""
    path = (root or models_dir) / file.path
    if not path.is_file():
        return "missing", f"{path} is missing"
    stat = path.stat()
    if file.size is not None and stat.st_size != file.size:
        return (
            "corrupt",
            f"{path} has {stat.st_size:,} bytes, expected {file.size:,} (truncated or wrong file)",
        )
    expected = expected_sha256(models_dir, file)
    if expected is None:
        return "corrupt", f"{path}: no checksum recorded (rebuild with `make models`)"
    stamps = _read_stamps(models_dir)
    key = str(path) if root is not None else file.path
    stamp = stamps.get(key)
    fresh = (
        isinstance(stamp, dict)
        and stamp.get("size") == stat.st_size
        and stamp.get("mtime_ns") == stat.st_mtime_ns
        and stamp.get("sha256") == expected
    )
    if fresh and not full:
        return "verified", "ok"
    actual = sha256_file(path)
    if actual != expected:
        return "corrupt", f"{path}: sha256 mismatch: expected {expected}, got {actual}"
    stamps[key] = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns, "sha256": actual}
    _write_stamps(models_dir, stamps)
    return "verified", "ok"


def artifact_root(manifest: Manifest, art: Artifact) -> Path | None:
    """The folder an artifact's file paths are relative to: the models folder, or its package's folder (None
    when that package is not installed)."""
    return package_folder(art.package) if art.package else manifest.folder


def check_artifact(manifest: Manifest, art: Artifact, *, full: bool = False) -> ArtifactStatus:
    root = artifact_root(manifest, art)
    if root is None:
        wanted = f"{art.package}=={art.spec.get('version')}" if art.spec.get("version") else str(art.package)
        return ArtifactStatus(art, "missing", f"the Python package {wanted} is not installed", 0)
    size = 0
    for file in art.files:
        state, detail = verify_file(manifest.folder, file, full=full, root=root if art.package else None)
        if state != "verified":
            return ArtifactStatus(art, state, detail, size)
        size += (root / file.path).stat().st_size
    return ArtifactStatus(art, "verified", f"verified, {size / 1e6:,.0f} MB", size)


def _require_verified(manifest: Manifest, art: Artifact) -> Path:
    status = check_artifact(manifest, art)
    repair = "run `make setup`" if art.package else "run `make models`"  # a package comes with the environment
    if status.state == "missing":
        raise ModelError(f"model '{art.id}' is not installed ({status.detail}); {repair}")
    if status.state != "verified":
        raise ModelError(f"model '{art.id}' failed verification: {status.detail}; {repair}")
    root = artifact_root(manifest, art)
    assert root is not None  # check_artifact found it
    return root / art.path


def resolve_ocr_models(models_dir: Path | None = None) -> dict[str, Path]:
    """The verified OCR model files by task (``det``, ``cls``, ``rec``), from the manifest's ``ocr`` artifact."""
    manifest = load_manifest(models_dir)
    art = manifest.find("ocr")
    if art is None or art.kind != "onnx-ocr":
        raise ModelError(f"{manifest.folder / MANIFEST_NAME}: no OCR models (role 'ocr') in the manifest")
    folder = _require_verified(manifest, art)
    return {str(f["task"]): folder / str(f["path"]) for f in art.spec["files"]}


def resolve_gguf(spec: str, models_dir: Path | None = None) -> Path:
    """A GGUF path from a user path, an artifact id, a role, or ``default`` / ``fast`` / ``tiny``."""
    if spec.endswith(".gguf") or os.sep in spec:
        path = Path(spec).expanduser()
        if not path.is_file():
            raise ModelError(f"{path}: GGUF model file not found")
        return path
    manifest = load_manifest(models_dir)
    art = manifest.find(spec) or manifest.find(f"llm-{spec}")
    if art is None or art.kind != "gguf":
        names = ", ".join(a.id for a in manifest.artifacts if a.kind == "gguf")
        raise ConfigError(f"llm.model = '{spec}': not a .gguf path nor an installed model ({names})")
    return _require_verified(manifest, art)


def resolve_encoder_dir(spec: str, models_dir: Path | None = None) -> Path:
    """An encoder folder (holding encoder.json) from a user path, an artifact id, a role or an alias."""
    if os.sep in spec or Path(spec).expanduser().is_dir():
        path = Path(spec).expanduser()
        if not (path / "encoder.json").is_file():
            raise ModelError(f"{path}: not an encoder folder (needs encoder.json, an .onnx model, tokenizer.json)")
        return path
    manifest = load_manifest(models_dir)
    alias = {"default": "encoder-default", "minilm": "encoder-english", "gemma": "encoder-default"}
    art = manifest.find(alias.get(spec, spec))
    if art is None or art.kind != "onnx-encoder":
        names = ", ".join(a.id for a in manifest.artifacts if a.kind == "onnx-encoder")
        raise ConfigError(f"encoder.model = '{spec}': not an encoder folder nor an installed encoder ({names})")
    return _require_verified(manifest, art)


@dataclass(frozen=True)
class EncoderInfo:
    """What a KB records about its encoder, read from encoder.json without loading the model."""

    id: str
    dim: int
    max_tokens: int


def read_encoder_info(folder: Path) -> EncoderInfo:
    path = folder / "encoder.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return EncoderInfo(str(data["id"]), int(data["dim"]), int(data["max_tokens"]))
    except FileNotFoundError:
        raise ModelError(f"{path}: encoder description not found") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError(f"{path}: invalid encoder description ({exc})") from None
