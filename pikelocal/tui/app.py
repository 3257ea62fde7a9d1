"""The pikelocal terminal app: ask (F2), library (F3), history (F4), review (F5), help (F1); work runs in threads.

The screens ask the App for work by posting messages (:mod:`pikelocal.tui.messages`), which the App handles here."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from textual.app import App
from textual.binding import Binding

from pikelocal import api
from pikelocal.tui.jobs import Job, run_job
from pikelocal.tui.messages import CancelJob, JobStarted, ShowTrace, StartJob
from pikelocal.tui.render import file_name
from pikelocal.tui.screens.ask import AskScreen
from pikelocal.tui.screens.help import HelpScreen
from pikelocal.tui.screens.history import HistoryScreen
from pikelocal.tui.screens.library import LibraryScreen
from pikelocal.tui.screens.open_kb import OpenKBScreen
from pikelocal.tui.screens.review import ReviewScreen

STOP_GRACE_S = 3.0  # how long Ctrl+Q waits for running work to reach a safe point


class PikeApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "pikelocal"
    ENABLE_COMMAND_PALETTE = False  # every action has a key (F1 lists them); the footer needs the room
    # screens installed once a KB is open
    MODES = {"ask": "ask", "library": "library", "history": "history", "review": "review"}
    BINDINGS = [
        Binding("f1", "help", "Help"),
        Binding("f2", "mode('ask')", "Ask", show=False),
        Binding("f3", "mode('library')", "Library"),
        Binding("f4", "mode('history')", "History"),
        Binding("f5", "mode('review')", "Review"),
        Binding("ctrl+c", "cancel_all", "Cancel", priority=True, show=False),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, settings: api.Settings, kb: api.KnowledgeBase | None = None) -> None:
        super().__init__()
        self.settings = settings
        self._kb = kb
        self.jobs: dict[str, Job] = {}

    @property
    def kb(self) -> api.KnowledgeBase:
        assert self._kb is not None, "no knowledge base is open"
        return self._kb

    def on_mount(self) -> None:
        if self._kb is None:
            self.push_screen(OpenKBScreen(), self.open_kb)
        else:
            self.open_kb(self._kb.path)

    def open_kb(self, path: Path | None) -> None:
        if path is None:
            self.exit()
            return
        if self._kb is None or self._kb.path != path:
            self._kb = api.open_kb(path, self.settings)
        self.sub_title = file_name(str(path))
        screens = (("ask", AskScreen), ("library", LibraryScreen), ("history", HistoryScreen), ("review", ReviewScreen))
        for name, screen in screens:
            if not self.is_screen_installed(name):
                self.install_screen(screen(), name)
        self.switch_mode("ask" if self._kb.exists() else "library")
        if not self._kb.exists():
            self.notify(f"{self.sub_title} is new: press a to add files or a folder", title="New knowledge base")

    # --- work off the UI thread ----------------------------------------------------------------------

    def job_running(self, name: str) -> bool:
        job = self.jobs.get(name)
        return job is not None and job.running

    def on_start_job(self, message: StartJob) -> None:
        """A screen's work, run in a thread: the screen hears ``JobStarted`` first, then the work's events, result
        or error as messages; a job of the same name still running gets a warning instead."""
        name, receiver, work = message.job, message.receiver, message.work
        if self.job_running(name):
            self.notify(f"{name} is still running (Esc or Ctrl+C cancels it)", severity="warning")
            return
        job = Job(name)
        self.jobs[name] = job
        receiver.post_message(JobStarted(name, message.detail))  # queued before anything the work posts
        self.run_worker(lambda: run_job(job, receiver, work), thread=True, group=name, exit_on_error=False)

    def on_cancel_job(self, message: CancelJob) -> None:
        self.cancel_job(message.job)

    def cancel_job(self, name: str) -> bool:
        job = self.jobs.get(name)
        if job is None or not job.running:
            return False
        job.cancel.set()
        self.notify(f"Cancelling {name}… (the current step finishes first)", severity="warning")
        return True

    def action_cancel_all(self) -> None:
        if not any([self.cancel_job(name) for name in list(self.jobs)]):
            self.notify("Nothing is running. Ctrl+Q quits.")

    # --- navigation ----------------------------------------------------------------------------------

    def action_mode(self, mode: str) -> None:
        if self._kb is None:
            return
        if self.current_mode != mode:
            self.switch_mode(mode)

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def on_show_trace(self, message: ShowTrace) -> None:
        """Reopen a past question on the ask screen."""
        await self.switch_mode("ask")
        screen = self.get_screen("ask")
        if isinstance(screen, AskScreen):
            screen.load_trace(message.trace_id)

    def on_unmount(self) -> None:
        for job in self.jobs.values():
            job.cancel.set()
        if self._kb is not None and not any(job.running for job in self.jobs.values()):
            self._kb.close()  # never under a worker still inside a model call: the process exit frees it


def stragglers(app: PikeApp, grace: float) -> list[str]:
    """The jobs still running ``grace`` seconds after the app asked them to stop (they are between two safe points,
    e.g. inside one LLM call)."""
    deadline = time.monotonic() + grace
    for job in app.jobs.values():
        job.done.wait(max(0.0, deadline - time.monotonic()))
    return [job.name for job in app.jobs.values() if job.running]


def log_file() -> Path:
    """``$XDG_STATE_HOME/pikelocal/tui.log`` (``~/.local/state/pikelocal/tui.log``)."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(state) / "pikelocal" / "tui.log"


def log_to_file(path: Path) -> None:
    """Send every log record and Python warning to ``path`` instead of stderr, which is the TUI's screen (one PDF
    with broken dictionaries once printed 16,506 pypdf warnings over it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    logging.captureWarnings(True)


def run(settings: api.Settings, kb_path: Path | None) -> None:
    app = PikeApp(settings, api.open_kb(kb_path, settings) if kb_path is not None else None)
    log_to_file(log_file())
    app.run()
    if waiting := stragglers(app, STOP_GRACE_S):
        # A worker thread inside one model call would keep the process alive until the call ends (35 s and more).
        # Leaving now is what a kill does: every finished step is in the KB (SQLite keeps it consistent) and the
        # next run continues from there.
        print(f"Stopped {', '.join(waiting)} mid-step; finished work is kept and the next run continues.", flush=True)
        os._exit(0)
