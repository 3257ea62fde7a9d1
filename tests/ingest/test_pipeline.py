"""The ingestion pipeline end to end on real KB files: folders, re-runs, replacements, duplicates, bad input, PDFs."""

from __future__ import annotations

import os
import random
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from pikelocal.config import Settings
from pikelocal.domain.events import Event, Notice, StageAdvanced, ignore
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import FileOutcome, IngestOptions, Ingestor, IngestReport
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store
from tests.support.encoders import CountingEncoder

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
ENCRYPTED = "edge_cases/libreoffice-writer-password.pdf"
IMAGE_ONLY = "edge_cases/imagemagick-CCITTFaxDecode.pdf"
GARBLED = "en_legal_au/Contract scope of the penalty doctrine(ANZ Bank).pdf"

# --- the corpus: what each file holds and how it is written -----------------------------------------------

ALPHA = (
    "Northern pike are ambush predators of cool, weedy lakes.\r\n"
    "They wait motionless among the reeds and strike at passing fish with a sudden burst of speed.\r\n"
    "\r\n"
    "Anglers prize them for the fight; biologists for what they tell about a lake's health.\r\n"
    "A café owner in Zürich once kept one in an aquarium for eleven years, feeding it perch.\r\n"
    "\r\n"
    "Spawning happens in early spring, in flooded meadows where the water warms first.\r\n"
    "The young grow quickly and turn on each other when food runs short.\r\n"
    "By autumn the survivors are a hand long and already hunting minnows along the shore.\r\n"
)
GUIDE_TITLE = "Field Guide to the Northern Pike"
GUIDE = (
    f"# {GUIDE_TITLE}\n\n"
    "This guide collects field notes gathered over three seasons of survey work on the northern lakes.\n\n"
    "## Habitat\n\n"
    "Pike favour shallow bays with submerged vegetation. In summer they move to deeper, cooler water "
    "near drop-offs and return to the shallows when the temperature falls in autumn.\n\n"
    "## Diet\n\n"
    "Fish make up most of the diet: perch, roach and smaller pike. Frogs, ducklings and voles are taken "
    "when the chance arises. A pike swallows its prey head first after turning it in its jaws.\n\n"
    "## Tagging\n\n"
    "Every fish caught was measured, weighed and released with a numbered tag behind the dorsal fin.\n"
)
NESTED_TITLE = "Deep Notes on Winter Ice"
NESTED = (
    "Loose remark before any heading, kept as it is.\n\n"
    f"## {NESTED_TITLE}\n\n"
    "Under the ice pike stay active and keep feeding, unlike many other species that slow down.\n"
    "Oxygen can run low in small lakes by late winter; then the fish gather near inflowing streams.\n\n"
    "# A Later Top Heading\n\n"
    "The first heading names the document even when a bigger one comes later in the file.\n"
)
GB18030_TEXT = (
    "第一章 总则\n\n"
    "第一条 为了规范招标投标活动，保护国家利益、社会公共利益和招标投标活动当事人的合法权益，"
    "提高经济效益，保证项目质量，制定本法。\n\n"
    "第二条 在中华人民共和国境内进行招标投标活动，适用本法。\n\n"
    "第三条 招标投标活动应当遵循公开、公平、公正和诚实信用的原则。投标人应当具备承担招标项目的能力；"
    "国家有关规定对投标人资格条件或者招标文件对投标人资格条件有规定的，投标人应当具备规定的资格条件。\n"
)
BIG5_TEXT = (
    "第一條 為保障人民權利，增進公共福利，特制定本法。\n"
    "第二條 本法所稱主管機關：在中央為內政部；在直轄市為直轄市政府；在縣（市）為縣（市）政府。\n"
    "第三條 契約之當事人應依誠實及信用方法履行義務，不得以損害他人為主要目的。\n"
    "第四條 當事人互相表示意思一致者，無論其為明示或默示，契約即為成立。\n"
)

# relative path → (bytes on disk, the text the KB must hold for it, expected title)
CORPUS: dict[str, tuple[bytes, str, str]] = {
    "alpha.txt": (ALPHA.encode("utf-8"), ALPHA.replace("\r\n", "\n"), "alpha"),
    "guide.md": (GUIDE.encode("utf-8"), GUIDE, GUIDE_TITLE),
    "sub/deeper/winter.md": (NESTED.encode("utf-8"), NESTED, NESTED_TITLE),
    "zh/招标法.txt": (GB18030_TEXT.encode("gb18030"), GB18030_TEXT, "招标法"),
    "zh/契約_big5.txt": (BIG5_TEXT.encode("big5"), BIG5_TEXT, "契約_big5"),
}
IGNORED = {".git/x.txt": b"a file inside a hidden folder\n", ".DS_Store": b"Bud1\x00\x00\x00\x01junk"}


def write_corpus(root: Path) -> Path:
    for rel, data in [*((r, d) for r, (d, _, _) in CORPUS.items()), *IGNORED.items()]:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return root


# --- helpers ---------------------------------------------------------------------------------------------


def open_kb(path: Path) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim)


def ingest(
    store: Store,
    paths: Sequence[Path],
    *,
    sink: Callable[[Event], None] = ignore,
    encoder: HashEncoder | None = None,
    **options: object,
) -> IngestReport:
    opts = IngestOptions.from_settings(Settings(), **{"split": SMALL, "late": True, **options})
    return Ingestor(store, encoder or HashEncoder(), opts, sink).ingest_paths(list(paths))


def by_path(report: IngestReport) -> dict[str, FileOutcome]:
    out = {o.path: o for o in report.outcomes}
    assert len(out) == len(report.outcomes), "a path reported twice"
    return out


def key(path: Path) -> str:
    return str(path.resolve())


def assert_consistent(store: Store) -> dict[str, int]:
    """Sound file, one early and one late vector per chunk, every document ready, chunks numbered 0..n-1."""
    assert store.integrity_check() == []
    counts = store.counts()
    assert counts["chunk_vectors"] == counts["late_vectors"] == counts["chunks"] > 0
    docs = store.docs.documents()
    assert counts["documents"] == len(docs)
    assert {d.stage for d in docs} == {"ready"}
    total = 0
    for doc in docs:
        chunks = store.chunks.chunks_of(doc.id)
        assert [c.ord for c in chunks] == list(range(len(chunks)))
        total += len(chunks)
    assert total == counts["chunks"]
    return counts


def texts_by_path(store: Store) -> dict[str, str]:
    return {d.path: "".join(c.text for c in store.chunks.chunks_of(d.id)) for d in store.docs.documents()}


# --- a good folder ---------------------------------------------------------------------------------------


def test_folder_is_ingested_whole_with_exact_text_positions_and_headers(tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs")
    for rel in ("zh/招标法.txt", "zh/契約_big5.txt"):  # really not UTF-8 on disk: the fallback decoders run
        with pytest.raises(UnicodeDecodeError):
            (folder / rel).read_bytes().decode("utf-8")
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [folder], sink=events.append)

        outcomes = by_path(report)
        assert set(outcomes) == {key(folder / rel) for rel in CORPUS}  # hidden .git/ and .DS_Store left out
        assert {o.status for o in outcomes.values()} == {"ingested"}
        assert report.failed == [] and store.docs.failures() == []
        assert not [e for e in events if isinstance(e, Notice) and e.level == "error"]

        counts = assert_consistent(store)
        assert counts["documents"] == counts["pages"] == len(CORPUS)
        assert counts["chunks"] == sum(o.chunks for o in outcomes.values())
        # the small split options give several chunks to every file but the shortest ones
        assert counts["chunks"] >= 2 * len(CORPUS)

        docs = {d.path: d for d in store.docs.documents()}
        for rel, (_, text, title) in CORPUS.items():
            doc = docs[key(folder / rel)]
            assert doc.title == title, rel
            assert doc.kind == ("markdown" if rel.endswith(".md") else "text")
            assert outcomes[doc.path].doc_id == doc.id
            chunks = store.chunks.chunks_of(doc.id)
            assert "".join(c.text for c in chunks) == text, rel
            assert outcomes[doc.path].chunks == len(chunks)
            n_lines = text.count("\n") + (0 if text.endswith("\n") else 1)
            for c in chunks:
                assert text[c.char_start : c.char_end] == c.text, (rel, c.ord)
                assert c.page_start == c.page_end == 1  # text files are one page
                assert 1 <= c.line_start <= c.line_end <= n_lines, (rel, c.ord)
                # the first line of a chunk is the one holding its first visible character
                first = c.char_start + (len(c.text) - len(c.text.lstrip()))
                assert c.line_start == text.count("\n", 0, first) + 1, (rel, c.ord)
                last = c.char_start + len(c.text.rstrip()) - 1
                assert c.line_end == text.count("\n", 0, last) + 1, (rel, c.ord)
                assert c.header.startswith(title), (rel, c.header)

        # the GB18030 and Big5 files were decoded, not mangled: their words are found by full-text search
        gb, big5 = docs[key(folder / "zh/招标法.txt")], docs[key(folder / "zh/契約_big5.txt")]
        owners = store.chunks.chunk_owners()
        assert {owners[i] for i, _ in store.index.fts_search("chunk", "招标投标", 5)} == {gb.id}
        assert {owners[i] for i, _ in store.index.fts_search("chunk", "誠實", 5)} == {big5.id}


def test_second_run_on_the_same_folder_changes_nothing(tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        before, docs_before, texts_before = store.counts(), store.docs.documents(), texts_by_path(store)

        encoder = CountingEncoder()
        report = ingest(store, [folder], encoder=encoder)

        assert len(report.outcomes) == len(CORPUS)
        assert {o.status for o in report.outcomes} == {"unchanged"}
        assert all(o.doc_id is not None for o in report.outcomes)
        assert encoder.texts == 0 and encoder.token_calls == 0  # nothing embedded again
        assert store.counts() == before  # no new document, chunk, vector or LLM-cache row
        assert store.docs.documents() == docs_before  # same ids, same stage, not even touched
        assert texts_by_path(store) == texts_before
        assert_consistent(store)


def test_changed_file_replaces_its_older_version(tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs")
    target = folder / "alpha.txt"
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        before = store.counts()
        old = next(d for d in store.docs.documents() if d.path == key(target))
        old_chunk_ids = {c.id for c in store.chunks.chunks_of(old.id)}
        assert store.index.fts_search("chunk", "aquarium", 5)  # a word only the old version has

        new_text = (
            "Muskellunge are the pike's larger cousins.\n\nThey are rarer, warier and grow past a metre; "
            "anglers call them the fish of ten thousand casts.\nA hybrid of the two is the tiger muskie.\n"
        )
        target.write_text(new_text, encoding="utf-8")
        report = ingest(store, [folder])

        outcomes = by_path(report)
        assert outcomes[key(target)].status == "replaced"
        assert {o.status for p, o in outcomes.items() if p != key(target)} == {"unchanged"}
        counts = assert_consistent(store)  # includes: no vector or FTS row without its chunk
        assert counts["documents"] == before["documents"]

        docs = {d.path: d for d in store.docs.documents()}
        new = docs[key(target)]
        assert new.id != old.id and store.docs.get_document(old.id) is None
        assert store.chunks.chunks_of(old.id) == [] and not old_chunk_ids & set(store.chunks.chunk_owners())
        assert "".join(c.text for c in store.chunks.chunks_of(new.id)) == new_text
        assert store.index.fts_search("chunk", "aquarium", 5) == []
        owners = store.chunks.chunk_owners()
        assert {owners[i] for i, _ in store.index.fts_search("chunk", "muskellunge", 5)} == {new.id}
        # the nearest dense vectors to the new text are the new document's, so its vectors were written
        (cid, _), *_ = store.index.knn("chunk", HashEncoder().encode(["tiger muskie hybrid"], role="query")[0], 1)
        assert owners[cid] == new.id


def test_same_content_at_a_second_path_is_a_duplicate(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    (folder / "a" / "original.txt").write_bytes(ALPHA.encode())
    (folder / "b" / "copy.txt").write_bytes(ALPHA.encode())
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [folder])
        first, second = key(folder / "a" / "original.txt"), key(folder / "b" / "copy.txt")
        outcomes = by_path(report)
        assert outcomes[first].status == "ingested"
        dup = outcomes[second]
        assert dup.status == "duplicate" and first in dup.message
        assert dup.doc_id == outcomes[first].doc_id
        assert [d.path for d in store.docs.documents()] == [first]
        assert report.failed == [] and store.docs.failures() == []
        assert_consistent(store)

        # on a later run too, the copy is a duplicate of the first path
        again = by_path(ingest(store, [folder / "b"]))
        assert again[second].status == "duplicate" and first in again[second].message


# --- bad input -------------------------------------------------------------------------------------------


def test_bad_files_fail_one_by_one_and_the_batch_goes_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    files = {
        "a_empty.txt": (b"", "empty"),
        "b_blank.md": (b"  \n\n\t \n   \n", "empty"),
        "c_junk.pdf": (random.Random(7).randbytes(3000), "corrupt"),
        "d_report.docx": (b"PK\x03\x04" + random.Random(8).randbytes(500), "corrupt"),  # a damaged zip
        "d_report.doc": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + random.Random(8).randbytes(500), "unsupported"),
        "e_scan.png": (b"\x89PNG\r\n\x1a\n" + random.Random(9).randbytes(500), "unsupported"),
    }
    for name, (data, _) in files.items():
        (folder / name).write_bytes(data)
    expected = {key(folder / name): reason for name, (_, reason) in files.items()}
    locked = folder / "f_locked.txt"
    locked.write_text("secret text nobody may read\n")
    locked.chmod(0)
    expected[key(locked)] = "unreadable"
    if os.geteuid() == 0:  # root reads a mode-000 file anyway: make opening it fail as it would for a user
        real_open = os.open

        def os_open(path: str, flags: int, *args: int, **kwargs: int) -> int:
            if os.path.realpath(path) == str(locked.resolve()):
                raise PermissionError(13, "Permission denied", str(path))
            return real_open(path, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", os_open)
    good = folder / "z_good.txt"
    good.write_text(ALPHA)
    missing = tmp_path / "nowhere" / "gone.txt"
    expected[str(missing)] = "vanished"

    events: list[Event] = []
    try:
        with open_kb(tmp_path / "kb.kb") as store:
            report = ingest(store, [missing, folder], sink=events.append)

            outcomes = by_path(report)
            assert outcomes[key(good)].status == "ingested"  # a good file after all the bad ones still goes in
            assert {o.path: o.reason for o in report.failed} == expected  # exactly the failed files
            assert report.count("failed") == len(expected)
            for path in expected:
                o = outcomes[path]
                assert o.status == "failed"
                assert Path(path).name in o.message and "\n" not in o.message, o
            errors = [e.message for e in events if isinstance(e, Notice) and e.level == "error"]
            assert sorted(errors) == sorted(outcomes[p].message for p in expected)

            assert {f.path: f.reason for f in store.docs.failures()} == expected
            assert all(Path(f.path).name in f.message for f in store.docs.failures())
            assert [d.path for d in store.docs.documents()] == [key(good)]
            assert_consistent(store)

            # the empty file gets content: it goes in, and its recorded failure is gone
            (folder / "a_empty.txt").write_text("Now the file has a sentence in it.\n")
            again = by_path(ingest(store, [folder / "a_empty.txt"]))
            assert again[key(folder / "a_empty.txt")].status == "ingested"
            assert key(folder / "a_empty.txt") not in {f.path for f in store.docs.failures()}
            assert len(store.docs.failures()) == len(expected) - 1
            assert_consistent(store)
    finally:
        if locked.exists():
            locked.chmod(0o644)


def test_file_vanishing_mid_run_fails_alone(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    names = ["a_first.txt", "b_second.txt", "c_third.txt"]
    for i, name in enumerate(names):
        (folder / name).write_text(f"Document number {i} talks about pike number {i}.\n\nIt has two paragraphs.\n")
    victim = folder / names[1]

    def sink(event: Event) -> None:
        if isinstance(event, StageAdvanced) and event.stage == "parse" and event.done == 1:
            victim.unlink()  # gone after the first file, before the second is read

    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [folder], sink=sink)
        outcomes = by_path(report)
        assert [outcomes[key(folder / n)].status for n in names] == ["ingested", "failed", "ingested"]
        failed = outcomes[key(victim)]
        assert failed.reason == "vanished" and victim.name in failed.message
        assert [(f.path, f.reason) for f in store.docs.failures()] == [(key(victim), "vanished")]
        assert sorted(d.path for d in store.docs.documents()) == [key(folder / names[0]), key(folder / names[2])]
        assert_consistent(store)


def test_failure_for_a_missing_relative_path_is_cleared_once_the_file_ingests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    relative = Path("later.txt")
    with open_kb(tmp_path / "kb.kb") as store:
        (missing,) = ingest(store, [relative]).outcomes
        assert missing.status == "failed" and missing.reason == "vanished"
        relative.write_text("The file exists now and holds a sentence.\n")
        (done,) = ingest(store, [relative]).outcomes
        assert done.status == "ingested"
        assert store.docs.failures() == []  # fails: the 'vanished' record of 'later.txt' stays for good
        assert missing.path == done.path == key(relative)  # one key for one file, as for every other outcome


# --- real PDFs -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pdfs(shared_data: Path) -> Path:
    return shared_data / "pdfs"


def test_real_pdfs_encrypted_image_only_and_garbled(tmp_path: Path, pdfs: Path) -> None:
    encrypted, image_only, garbled = pdfs / ENCRYPTED, pdfs / IMAGE_ONLY, pdfs / GARBLED
    events: list[Event] = []
    with open_kb(tmp_path / "kb.kb") as store:
        report = Ingestor(
            store, HashEncoder(), IngestOptions.from_settings(Settings(), late=True), events.append
        ).ingest_paths([encrypted, image_only, garbled])
        outcomes = by_path(report)
        assert outcomes[key(encrypted)].status == "failed" and outcomes[key(encrypted)].reason == "encrypted"
        assert outcomes[key(image_only)].status == "failed" and outcomes[key(image_only)].reason == "image-only"
        assert encrypted.name in outcomes[key(encrypted)].message
        assert image_only.name in outcomes[key(image_only)].message
        assert {o.path for o in report.failed} == {key(encrypted), key(image_only)}

        ok = outcomes[key(garbled)]
        assert ok.status == "ingested" and ok.pages > 1 and ok.chunks > 0
        warnings = [e.message for e in events if isinstance(e, Notice) and e.level == "warning"]
        assert any("garbled" in w and garbled.name in w for w in warnings), warnings
        assert any("garbled" in w for w in ok.warnings)

        assert {f.path: f.reason for f in store.docs.failures()} == {
            key(encrypted): "encrypted",
            key(image_only): "image-only",
        }
        counts = assert_consistent(store)
        assert counts["documents"] == 1 and counts["pages"] == ok.pages
        (doc,) = store.docs.documents()
        chunks = store.chunks.chunks_of(doc.id)
        assert all(1 <= c.page_start <= c.page_end <= ok.pages for c in chunks)
        assert all(c.line_start >= 1 and c.line_end >= 1 for c in chunks)
        assert [c.page_start for c in chunks] == sorted(c.page_start for c in chunks)
        assert chunks[-1].page_end == ok.pages  # the last page's text made it in

        # with its password the encrypted PDF goes in, and its recorded failure is dropped
        again = Ingestor(
            store, HashEncoder(), IngestOptions.from_settings(Settings(), password="openpassword", late=True)
        ).ingest_paths([encrypted])
        (opened,) = again.outcomes
        assert opened.status == "ingested" and opened.path == key(encrypted) and again.failed == []
        text = "".join(c.text for c in store.chunks.chunks_of(opened.doc_id))
        assert "Lorem ipsum" in text
        assert {f.path: f.reason for f in store.docs.failures()} == {key(image_only): "image-only"}
        assert assert_consistent(store)["documents"] == 2


def test_without_late_chunking_documents_are_ready_with_early_vectors_only(tmp_path: Path) -> None:
    folder = write_corpus(tmp_path / "docs")
    with open_kb(tmp_path / "kb.kb") as store:
        encoder = CountingEncoder()
        report = Ingestor(
            store, encoder, IngestOptions.from_settings(Settings(), split=SMALL, late=False)
        ).ingest_paths([folder])
        assert {o.status for o in report.outcomes} == {"ingested"}
        counts = store.counts()
        assert counts["chunk_vectors"] == counts["chunks"] > 0 and counts["late_vectors"] == 0
        # every text encoded is a chunk's or a statement's (a value with what it is of)
        assert encoder.texts == counts["chunks"] + counts["statements"] and encoder.token_calls == 0
        assert {d.stage for d in store.docs.documents()} == {"ready"}
        assert store.integrity_check() == []
        with pytest.raises(AssertionError):  # the helper the other tests lean on does notice missing late vectors
            assert_consistent(store)


def test_a_moved_file_keeps_its_rows_and_gets_its_new_path(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    old = folder / "contract.txt"
    old.write_text("The Supplier shall deliver the pumps by June.\n\nThe Buyer pays within 30 days.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        before = store.counts()
        (doc,) = store.docs.documents()
        new = folder / "renamed.txt"
        old.rename(new)
        (outcome,) = ingest(store, [folder]).outcomes
        assert outcome.status == "unchanged" and f"moved from {old.resolve()}" in outcome.message
        (moved,) = store.docs.documents()
        assert moved.id == doc.id and moved.path == str(new.resolve())
        assert store.counts() == before


def _texts(store: Store) -> dict[str, str]:
    return {Path(d.path).name: "".join(c.text for c in store.chunks.chunks_of(d.id)) for d in store.docs.documents()}


def test_a_file_edited_to_equal_another_loses_its_old_version(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Apples are delivered on Monday.\n")
    (folder / "b.txt").write_text("Bananas are delivered on Friday.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        (folder / "a.txt").write_text("Bananas are delivered on Friday.\n")
        outcomes = {Path(o.path).name: o.status for o in ingest(store, [folder]).outcomes}
        assert outcomes == {"a.txt": "duplicate", "b.txt": "unchanged"}
        assert _texts(store) == {"b.txt": "Bananas are delivered on Friday.\n"}  # the apples version is gone
        assert store.index.fts_search("chunk", "apples", 5) == []
        assert_consistent(store)


def test_a_file_moved_over_another_replaces_it(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Apples are delivered on Monday.\n")
    (folder / "b.txt").write_text("Bananas are delivered on Friday.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        (folder / "a.txt").rename(folder / "b.txt")
        (outcome,) = ingest(store, [folder]).outcomes
        assert outcome.status == "unchanged" and "moved from" in outcome.message
        assert _texts(store) == {"b.txt": "Apples are delivered on Monday.\n"}
        assert [d.path for d in store.docs.documents()] == [str((folder / "b.txt").resolve())]
        assert_consistent(store)


def test_the_kb_file_inside_the_ingested_folder_is_not_a_document(tmp_path: Path) -> None:
    (tmp_path / "note.txt").write_text("A note about the tender.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        report = ingest(store, [tmp_path])
        assert [(Path(o.path).name, o.status) for o in report.outcomes] == [("note.txt", "ingested")]
        assert store.docs.failures() == []


def test_late_vectors_follow_the_setting_across_runs(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.md").write_text("# Title\n\n" + "Clause text about delivery and payment. " * 40 + "\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder], late=False)
        assert {d.stage for d in store.docs.documents()} == {"ready"}
        assert store.counts()["late_vectors"] == 0
        report = ingest(store, [folder], late=True)  # the file is unchanged, but its late vectors are missing
        assert [o.status for o in report.outcomes] == ["unchanged"]
        counts = store.counts()
        assert counts["late_vectors"] == counts["chunks"] > 1
        assert report.units["late"] == counts["chunks"]
        assert_consistent(store)


def test_a_document_left_embedded_finishes_without_late_chunking(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.txt").write_text("Some text to embed.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [folder])
        (doc,) = store.docs.documents()
        store.docs.set_document_stage(doc.id, "embedded")  # as a run killed before its late stage leaves it
        ingest(store, [folder], late=False)
        assert store.docs.get_document(doc.id).stage == "ready"  # type: ignore[union-attr]


def test_a_failure_clears_when_the_file_comes_back_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("The pumps arrive in June.\n")
    with open_kb(tmp_path / "kb.kb") as store:
        ingest(store, [path])
        moved = path.rename(tmp_path / "elsewhere.bin")
        (gone,) = ingest(store, [path]).outcomes
        assert gone.status == "failed" and [f.reason for f in store.docs.failures()] == ["vanished"]
        moved.rename(path)
        (back,) = ingest(store, [path]).outcomes
        assert back.status == "unchanged" and store.docs.failures() == []
