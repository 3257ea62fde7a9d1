"""Symbolic links are decided at the moment of reading.

A link named on the command line (``ingest KB folder/*`` names every link in the folder) is followed only with
``--follow-links``; a link out of a walked folder is refused whichever way the command was given; and a file swapped
for a link (or for another file) after discovery is refused when it is read, with a one-line reason, while the rest
of the batch goes on. Stand-ins for /etc/shadow and /etc/passwd live in a private folder beside the documents.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from pikelocal import api
from pikelocal.config import Settings
from pikelocal.domain.events import Event, StageStarted
from pikelocal.domain.requests import AddRequest
from pikelocal.embed.fake import HashEncoder
from pikelocal.ingest.pipeline import FileOutcome, IngestOptions, Ingestor, IngestReport
from pikelocal.ingest.split.chunking import SplitOptions
from pikelocal.store.store import Store
from tests.support.cli import run_cli
from tests.support.paths import installed_model

SMALL = SplitOptions(target=40, min_tokens=10, max_tokens=60)
SHADOW = "root:$6$saltsalt$hashofthesecretpassword:19000:0:99999:7:::"
PASSWD = "root:x:0:0:root:/root:/bin/bash"


def open_kb(path: Path) -> Store:
    enc = HashEncoder()
    return Store.open(path, encoder_id=enc.model_id, dim=enc.dim)


def ingest(
    store: Store, paths: Sequence[Path], sink: Callable[[Event], None] | None = None, **options: object
) -> IngestReport:
    opts = IngestOptions.from_settings(Settings(), **{"split": SMALL, "late": False, **options})
    return Ingestor(store, HashEncoder(), opts, sink or (lambda _event: None)).ingest_paths(list(paths))


def by_path(report: IngestReport) -> dict[str, FileOutcome]:
    out = {o.path: o for o in report.outcomes}
    assert len(out) == len(report.outcomes), "a path reported twice"
    return out


def stored_text(store: Store) -> str:
    return "\n".join(c.text for d in store.docs.documents() for c in store.chunks.chunks_of(d.id))


def assert_refused(outcome: FileOutcome, name: str, reason: str, *words: str) -> None:
    assert outcome.status == "failed" and outcome.reason == reason, outcome
    assert name in outcome.message and "\n" not in outcome.message, outcome
    for word in words:
        assert word in outcome.message, outcome


@pytest.fixture
def secrets(tmp_path: Path) -> Path:
    """A private folder holding the stand-ins for /etc/shadow and /etc/passwd (no extension, as there)."""
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "shadow").write_text(SHADOW + "\n")
    (etc / "passwd").write_text(PASSWD + "\n")
    return etc


@pytest.fixture
def folder(tmp_path: Path, secrets: Path) -> Path:
    """A documents folder with a real note and links named like documents to the two secrets."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "notes.txt").write_text("The pike spawns in flooded meadows in early spring.\n")
    (docs / "shadow.txt").symlink_to(secrets / "shadow")
    (docs / "passwd.txt").symlink_to(secrets / "passwd")
    return docs


# --- links named on the command line -------------------------------------------------------------------------


def test_links_named_on_the_command_line_are_refused_without_follow_links(
    tmp_path: Path, folder: Path, secrets: Path
) -> None:
    named = sorted(folder.iterdir())  # what the shell makes of `folder/*`: the links are named one by one
    (tmp_path / "etc-link").symlink_to(secrets, target_is_directory=True)  # a named link to a folder, too
    named.append(tmp_path / "etc-link")
    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, named))
        for link, target in (("shadow.txt", "shadow"), ("passwd.txt", "passwd")):
            here = str(folder.resolve() / link)
            # recorded under the link's own path: the target's path is never written to the KB
            assert_refused(outcomes[here], link, "link", str(secrets.resolve() / target), "--follow-links")
        assert_refused(outcomes[str(tmp_path.resolve() / "etc-link")], "etc-link", "link", "--follow-links")
        assert outcomes[str(folder.resolve() / "notes.txt")].status == "ingested"
        text = stored_text(store)
        assert "pike spawns" in text and "root:" not in text
        assert sorted(f.path for f in store.docs.failures()) == sorted(
            str(p) for p in (folder.resolve() / "passwd.txt", folder.resolve() / "shadow.txt", tmp_path / "etc-link")
        )
        assert store.integrity_check() == []


def test_follow_links_reads_a_named_link(tmp_path: Path, folder: Path, secrets: Path) -> None:
    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, [folder / "shadow.txt", folder / "notes.txt"], follow_links=True))
        # the user vouched for the link: it is read, and stored where it really is
        assert outcomes[str(secrets.resolve() / "shadow")].status == "ingested"
        assert outcomes[str(folder.resolve() / "notes.txt")].status == "ingested"
        assert SHADOW in stored_text(store)
        assert store.docs.failures() == []


def test_follow_links_is_a_request_of_the_facade(tmp_path: Path, folder: Path, secrets: Path) -> None:
    kb = tmp_path / "kb.kb"
    with api.open_kb(kb, Settings(), encoder=HashEncoder()) as knowledge_base:
        refused = knowledge_base.add([folder / "passwd.txt"], AddRequest(late=False)).ingest
        assert [(o.status, o.reason) for o in refused.outcomes] == [("failed", "link")]
        followed = knowledge_base.add([folder / "passwd.txt"], AddRequest(late=False, follow_links=True)).ingest
        assert [(o.path, o.status) for o in followed.outcomes] == [(str(secrets.resolve() / "passwd"), "ingested")]


@pytest.mark.slow  # the real CLI in a subprocess, with the small MiniLM encoder
def test_the_cli_refuses_a_named_link_and_follows_it_with_follow_links(
    tmp_path: Path, folder: Path, secrets: Path
) -> None:
    installed_model("minilm-l6-v2/model.onnx")
    kb = str(tmp_path / "kb.kb")
    named = [str(p) for p in sorted(folder.iterdir())]  # `ingest KB folder/*`
    refused = run_cli("--encoder", "minilm", "ingest", kb, *named, "--no-late")
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert "failed 2" in refused.stdout, refused.stdout
    for link in ("passwd.txt", "shadow.txt"):
        (line,) = [x for x in refused.stdout.splitlines() if f"{link}:" in x]
        assert "[link]" in line and "--follow-links" in line, line
    followed = run_cli("--encoder", "minilm", "ingest", kb, str(folder / "shadow.txt"), "--no-late", "--follow-links")
    assert followed.returncode == 0 and "Ingested 1 file(s)" in followed.stdout, followed.stdout + followed.stderr


def test_a_link_out_of_a_walked_folder_is_refused_even_with_follow_links(
    tmp_path: Path, folder: Path, secrets: Path
) -> None:
    (folder / "alias.txt").symlink_to(folder / "notes.txt")  # inside the folder: read as the file it names
    with open_kb(tmp_path / "kb.kb") as store:
        events: list[Event] = []
        report = ingest(store, [folder], events.append, follow_links=True)
        assert [(o.path, o.status) for o in report.outcomes] == [(str(folder.resolve() / "notes.txt"), "ingested")]
        warnings = [str(getattr(e, "message", "")) for e in events if getattr(e, "level", "") == "warning"]
        assert len(warnings) == 2, warnings
        for line in warnings:
            assert "outside" in line and "not followed" in line and "\n" not in line
        assert "root:" not in stored_text(store)


# --- a file swapped after discovery ----------------------------------------------------------------------------


def _swap_to_link(doc: Path, secrets: Path) -> None:
    doc.unlink()
    doc.symlink_to(secrets / "shadow")


def _swap_to_hard_link(doc: Path, secrets: Path) -> None:
    doc.unlink()
    os.link(secrets / "shadow", doc)  # no link to follow: the same name, another file


def _swap_folder(doc: Path, secrets: Path) -> None:
    # the folder the file is in becomes a link to the secrets' folder, which holds a file of the same name
    (secrets / doc.name).write_text(SHADOW + "\n")
    moved = doc.parent.with_name("moved-away")
    doc.parent.rename(moved)
    doc.parent.symlink_to(secrets, target_is_directory=True)


@pytest.mark.parametrize(
    ("swap", "reason", "words"),
    [
        (_swap_to_link, "link", ("symbolic link", "after it was found")),
        (_swap_to_hard_link, "changed", ("another file", "after it was found")),
        (_swap_folder, "changed", ("another file", "after it was found")),
    ],
    ids=["file-to-link", "file-to-hard-link", "folder-to-link"],
)
def test_a_file_swapped_after_discovery_is_refused_and_the_batch_goes_on(
    tmp_path: Path, secrets: Path, swap: Callable[[Path, Path], None], reason: str, words: tuple[str, ...]
) -> None:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    first, last = docs / "a-first.txt", docs / "z-last.txt"
    first.write_text("The first document: pike in spring.\n")
    target = docs / "sub" / "m-middle.txt"
    target.write_text("The middle document, as it was when the batch began.\n")
    last.write_text("The last document: pike in autumn.\n")
    swapped: list[str] = []

    def sink(event: Event) -> None:
        # the seam: the parse stage starts after discovery and before the first file is read
        if isinstance(event, StageStarted) and event.stage == "parse" and not swapped:
            swap(target, secrets)
            swapped.append(target.name)

    with open_kb(tmp_path / "kb.kb") as store:
        outcomes = by_path(ingest(store, [docs], sink))
        assert swapped == ["m-middle.txt"]
        middle = str(docs.resolve() / "sub" / "m-middle.txt")  # the key discovery saw, not the link's target
        assert_refused(outcomes[middle], "m-middle.txt", reason, *words)
        assert outcomes[str(docs.resolve() / "a-first.txt")].status == "ingested"
        assert outcomes[str(docs.resolve() / "z-last.txt")].status == "ingested"
        text = stored_text(store)
        assert "root:" not in text and "pike in autumn" in text
        assert [f.path for f in store.docs.failures()] == [middle]
        assert store.integrity_check() == []
        assert {d.stage for d in store.docs.documents()} == {"ready"}
