"""The installed EmbeddingGemma computes the numbers of the float32 PyTorch model, on whatever CPU runs the tests.

The reference vectors were made once from the PyTorch model (build/make_probe_reference.py) and are committed.
Measured on an AMD EPYC with AVX2 and no VNNI (docs/BENCHMARKS.md, quantization options): the first export
(8-bit weights, whose U8S8 kernels saturate there) gives sentence probes down to 0.957 and late spans
down to 0.986 and fails; the portable 7-bit build gives 0.998 / 0.997 and passes, and computes the same
integers on every CPU.

A second reference holds the probe vectors of the installed int8 build as that AVX2 machine computed them (with
the model file's sha256). On another CPU, with the same file, the suite measures machine-to-machine agreement
directly: a KB made on the one must open on the other.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pikelocal.embed.probes import LATE_PROBE, PROBE_VERSION, SENTENCE_PROBES, late_spans, probe_vectors, rowwise_cosine
from tests.support.embed_models import GEMMA_DIR, load_encoder

REFERENCE = Path(__file__).resolve().parents[1] / "data" / "embeddinggemma_probes_fp32.json"
INT8_REFERENCES = sorted(REFERENCE.parent.glob("embeddinggemma_probes_int8_*.json"))
MIN_SENTENCE = 0.99  # int8-w7: 0.9977 min; int8-u8u8 0.9979; float-matmul 0.9998; the saturating int8-w8: 0.9567
MIN_LATE = 0.99  # int8-w7: 0.9967 min; int8-u8u8 0.9975; float-matmul 0.9996; the saturating int8-w8: 0.9858


def reference() -> dict:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


def test_reference_is_for_the_current_probes() -> None:
    ref = reference()
    assert ref["probe_version"] == PROBE_VERSION
    assert [tuple(p) for p in ref["sentences"]] == list(SENTENCE_PROBES)
    assert ref["late_probe"] == LATE_PROBE and [tuple(s) for s in ref["late_spans"]] == late_spans()
    vectors = np.asarray(ref["vectors"])
    assert vectors.shape == (len(SENTENCE_PROBES) + len(late_spans()), 768)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_installed_encoder_matches_the_pytorch_reference_on_this_cpu() -> None:
    encoder = load_encoder(GEMMA_DIR)
    ref = np.asarray(reference()["vectors"], dtype=np.float32)
    cos = rowwise_cosine(probe_vectors(encoder), ref)
    n = len(SENTENCE_PROBES)
    sentences, late = cos[:n], cos[n:]
    worst_s, worst_l = int(np.argmin(sentences)), int(np.argmin(late))
    assert sentences.min() >= MIN_SENTENCE, (
        f"sentence probe {SENTENCE_PROBES[worst_s][1]!r}: cosine {sentences.min():.4f} < {MIN_SENTENCE} to PyTorch"
        f" with {encoder.build}: this CPU computes other numbers than the reference build"
    )
    assert late.min() >= MIN_LATE, (
        f"late probe span {late_spans()[worst_l]}: cosine {late.min():.4f} < {MIN_LATE} to PyTorch with"
        f" {encoder.build}: this CPU computes other numbers than the reference build"
    )


@pytest.mark.slow
def test_kb_refuses_a_perturbed_build_of_the_real_encoder(tmp_path: Path) -> None:
    """A KB made with the installed build opens with it again, and is refused by a perturbed build of the same id."""
    from pikelocal.config import Settings
    from pikelocal.domain.errors import EncoderNumericsError
    from pikelocal.ingest.pipeline import IngestOptions, Ingestor
    from pikelocal.store.store import Store

    encoder = load_encoder(GEMMA_DIR)
    doc = tmp_path / "tender.md"
    doc.write_text("# 招标公告\n\n投标保证金为人民币伍万元，以银行保函形式提交。\n", encoding="utf-8")
    kb = tmp_path / "kb.kb"
    with Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=encoder) as store:
        Ingestor(store, encoder, IngestOptions.from_settings(Settings())).ingest_paths([doc])
    Store.open(kb, encoder_id=encoder.model_id, dim=encoder.dim, probe=load_encoder(GEMMA_DIR)).close()

    perturbed = tmp_path / "perturbed-build"  # the same files, but the projection shifted by ~1 %
    perturbed.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (perturbed / name).symlink_to(GEMMA_DIR / name)
    config = json.loads((GEMMA_DIR / "encoder.json").read_text(encoding="utf-8"))
    config["quantization"] = {"option": "perturbed-for-test"}
    (perturbed / "encoder.json").write_text(json.dumps(config), encoding="utf-8")
    m = np.load(GEMMA_DIR / "dense.npy")
    noise = np.random.default_rng(0).standard_normal(m.shape).astype(np.float32)
    np.save(perturbed / "dense.npy", m + 0.15 * noise * np.abs(m).mean())
    other = load_encoder(perturbed)
    with pytest.raises(EncoderNumericsError) as err:
        Store.open(kb, encoder_id=other.model_id, dim=other.dim, probe=other)
    message = str(err.value)
    assert "\n" not in message and encoder.build in message and other.build in message


@pytest.mark.slow
@pytest.mark.parametrize("path", INT8_REFERENCES, ids=[p.stem for p in INT8_REFERENCES])
def test_installed_encoder_agrees_with_the_same_file_on_another_cpu(path: Path) -> None:
    """Probe vectors of the same model file, computed on the CPU named in ``path``, open a KB here."""
    import hashlib

    from pikelocal.embed.probes import MIN_PROBE_COSINE

    ref = json.loads(path.read_text(encoding="utf-8"))
    assert ref["probe_version"] == PROBE_VERSION, f"{path.name}: made for other probes; remake it"
    model = GEMMA_DIR / "model.onnx"
    encoder = load_encoder(GEMMA_DIR)
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if digest != ref["model_sha256"]:
        pytest.skip(f"{path.name} was made with model.onnx {ref['model_sha256'][:12]}, this one is {digest[:12]}")
    cos = rowwise_cosine(probe_vectors(encoder), np.asarray(ref["vectors"], dtype=np.float32))
    assert cos.min() >= MIN_PROBE_COSINE, (
        f"probe cosine {cos.min():.5f} < {MIN_PROBE_COSINE} between {ref['cpu']} and {encoder.build}: a KB made"
        " on the one is refused on the other"
    )
