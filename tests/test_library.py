"""The knowledge base facade: finding a document by reference, removing a failure, search's encoder checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings, load_settings
from pikelocal.domain.errors import EncoderMismatchError, InputError, ModelError
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import IngestOptions, Ingestor
from pikelocal.kb import catalog
from pikelocal.kb import knowledge_base as kb_module
from pikelocal.store.store import Store


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "contract.txt").write_text(f"Contract {folder}: the pumps arrive in June.\n")
    (tmp_path / "junk.pdf").write_bytes(b"not a pdf")
    path = tmp_path / "kb.kb"
    enc = HashEncoder()
    with Store.open(path, encoder_id=enc.model_id, dim=enc.dim) as store:
        Ingestor(store, enc, IngestOptions.from_settings(Settings())).ingest_paths(
            [tmp_path / "a", tmp_path / "b", tmp_path / "junk.pdf"]
        )
    return path


def test_find_document_by_id_path_name_and_sha(kb: Path) -> None:
    with Store.open_existing(kb) as store:
        first, second = store.docs.documents()
        docs = store.docs.documents()
    assert catalog.find_document(docs, str(second.id)) == second
    assert catalog.find_document(docs, first.path) == first
    assert catalog.find_document(docs, second.sha256[:8].upper()) == second
    with pytest.raises(InputError, match="matches 2 documents"):
        catalog.find_document(docs, "contract.txt")  # the same file name in two folders
    with pytest.raises(InputError, match="no document 'nothing.txt'"):
        catalog.find_document(docs, "nothing.txt")
    with pytest.raises(InputError, match="no document"):
        catalog.find_document(docs, "abc")  # too short to be a sha256 prefix


def test_remove_forgets_a_recorded_failure(kb: Path) -> None:
    removed = api.open_kb(kb, load_settings(environ={})).remove("junk.pdf")
    assert removed.path.endswith("junk.pdf") and not hasattr(removed, "sha256")
    with Store.open_existing(kb) as store:
        assert store.docs.failures() == [] and len(store.docs.documents()) == 2
    with pytest.raises(InputError, match="no document 'junk.pdf'"):
        api.open_kb(kb, load_settings(environ={})).remove("junk.pdf")


def test_search_refuses_another_encoder_and_explains_a_missing_one(kb: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings(environ={})
    monkeypatch.setattr(kb_module, "open_encoder", lambda s: HashEncoder(model_id="other-encoder"))
    with pytest.raises(EncoderMismatchError, match="built with encoder 'hash-bigram'"):
        api.open_kb(kb, settings).search("pumps", api.SearchRequest(mode="dense"))

    def missing(s: object) -> HashEncoder:
        raise ModelError("models/x is not installed")

    monkeypatch.setattr(kb_module, "open_encoder", missing)
    with pytest.raises(ModelError, match="`--mode bm25` works without an encoder"):
        api.open_kb(kb, settings).search("pumps", api.SearchRequest(mode="hybrid"))
    hits = api.open_kb(kb, settings).search("pumps", api.SearchRequest(mode="bm25"))  # no encoder needed
    assert {Path(h.document.path).parent.name for h in hits} == {"a", "b"}
