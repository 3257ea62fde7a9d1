"""run_job turns every outcome of work into a message: result, cancel, a user error, or a bug (never a raise)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.message import Message

from pikelocal.cli import main
from pikelocal.config import load_settings
from pikelocal.domain.errors import InputError
from pikelocal.domain.events import EventSink, Notice
from pikelocal.tui.jobs import Job, WorkDone, WorkEvent, WorkFailed, run_job


class Inbox:
    """Stands in for a screen: keeps what is posted to it."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        return True


def run(work: object, *, cancel: bool = False) -> tuple[Job, list[Message]]:
    job, inbox = Job("work"), Inbox()
    if cancel:
        job.cancel.set()
    run_job(job, inbox, work)  # type: ignore[arg-type]
    assert not job.running
    return job, inbox.messages


def test_events_then_the_result() -> None:
    def work(sink: EventSink) -> int:
        sink(Notice("info", "half way"))
        return 42

    _, messages = run(work)
    assert isinstance(messages[0], WorkEvent) and messages[0].event == Notice("info", "half way")
    assert isinstance(messages[1], WorkDone) and messages[1].result == 42


def test_a_cancelled_job_stops_at_its_next_event() -> None:
    reached: list[str] = []

    def work(sink: EventSink) -> None:
        sink(Notice("info", "first unit done"))
        reached.append("second unit")

    _, messages = run(work, cancel=True)
    assert reached == []
    assert len(messages) == 1 and isinstance(messages[0], WorkFailed) and messages[0].cancelled


def test_a_user_error_is_its_one_line_message() -> None:
    def work(sink: EventSink) -> None:
        raise InputError("a.pdf: the file is encrypted\n(give --password)")

    _, messages = run(work)
    assert isinstance(messages[0], WorkFailed) and not messages[0].cancelled
    assert messages[0].error == "a.pdf: the file is encrypted (give --password)"


def test_a_bug_is_reported_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    def work(sink: EventSink) -> None:
        raise KeyError("chunk 7")

    _, messages = run(work)
    assert isinstance(messages[0], WorkFailed)
    assert messages[0].error == "unexpected error: KeyError: 'chunk 7'"
    assert "work failed" in caplog.text  # the traceback goes to the log


def test_tui_refuses_a_folder_or_a_non_kb_file_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a KB", encoding="utf-8")
    for path, reason, code in ((tmp_path, "is a folder", 6), (text, "is not a SQLite file", 6)):
        with pytest.raises(SystemExit) as exit_:
            main(["tui", str(path)])
        assert exit_.value.code == code
        err = capsys.readouterr().err
        assert err.startswith("Error: ") and reason in err and len(err.strip().splitlines()) == 1


def test_quitting_does_not_wait_for_work_inside_a_long_step(tmp_path: Path) -> None:
    """Ctrl+Q used to leave the process alive until the running model call ended (35 s and more): after a short
    grace the app names the work still inside a step, so `run` can leave the way a kill would."""
    import threading
    import time

    from pikelocal.tui.app import PikeApp, stragglers

    app = PikeApp(load_settings(environ={}))
    inside, release = threading.Event(), threading.Event()
    slow, quick = Job("enrich"), Job("ask")
    app.jobs.update(enrich=slow, ask=quick)

    def model_call(sink: EventSink) -> None:
        inside.set()
        release.wait(30)  # one step that checks no cancel flag

    threading.Thread(target=run_job, args=(slow, Inbox(), model_call), daemon=True).start()
    run_job(quick, Inbox(), lambda sink: None)
    assert inside.wait(5)
    t0 = time.monotonic()
    assert stragglers(app, grace=0.2) == ["enrich"]
    assert time.monotonic() - t0 < 5
    release.set()
    assert stragglers(app, grace=5) == []


def test_the_tui_logs_to_a_file_not_to_the_screen(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import logging
    import warnings

    from pikelocal.tui.app import log_to_file

    root = logging.getLogger()
    saved = list(root.handlers)
    try:
        log_to_file(tmp_path / "tui.log")
        logging.getLogger("pypdf").warning("Ignoring wrong pointing object 7 0 (offset 0)")
        warnings.warn("a library's warning", UserWarning, stacklevel=1)
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
            handler.close()
        for handler in saved:
            root.addHandler(handler)
        logging.captureWarnings(False)
    logged = (tmp_path / "tui.log").read_text()
    assert "Ignoring wrong pointing object" in logged and "a library's warning" in logged
    assert capsys.readouterr().err == ""
