"""The ask screen: a question, the answer as it streams, its sources, and the reasoning that led to it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Collapsible, Footer, Header, Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from pikelocal.api import claim_lines, summary_line
from pikelocal.domain import ANSWER_MODES, AskRequest, QueryTrace, answer_mode
from pikelocal.domain.errors import PikeError
from pikelocal.domain.events import AnswerDelta, EventSink, ReasoningStep
from pikelocal.tui.jobs import WorkDone, WorkEvent, WorkFailed
from pikelocal.tui.messages import CancelJob, JobStarted, StartJob
from pikelocal.tui.render import (
    answer_content,
    cited_excerpt,
    clip,
    evidence_text,
    reasoning_text,
    source_prompt,
    step_text,
)
from pikelocal.tui.widgets import AnswerView, QuestionInput

if TYPE_CHECKING:
    from pikelocal.tui.app import PikeApp

JOB = "answer"


class AskScreen(Screen[None]):
    BINDINGS = [
        Binding("ctrl+r", "toggle_reasoning", "Reasoning"),
        Binding("ctrl+o", "cycle_mode", "Mode", show=False),
        Binding("ctrl+s", "focus_sources", "Sources", show=False),
        Binding("escape", "cancel", "Cancel"),
    ]

    app: PikeApp

    def __init__(self) -> None:
        super().__init__()
        self.trace: QueryTrace | None = None
        self._streamed = ""
        self._steps: list[Text] = []
        self._working = False  # this screen's answer job is running (JobStarted until it is done or failed)

    def compose(self) -> ComposeResult:
        answer = self.app.settings.answer
        yield Header()
        with Horizontal(id="ask-bar"):
            yield QuestionInput(placeholder="Ask a question, Enter sends (↑↓ history)", id="question", compact=True)
            yield Select([(m, m) for m in ANSWER_MODES], value=answer.mode, allow_blank=False, id="mode", compact=True)
            yield Input(str(answer.rounds), type="integer", id="rounds", compact=True, tooltip="rounds at most")
        yield Static("Ready.", id="status")
        with VerticalScroll(id="answer-box"):
            yield AnswerView("", id="answer")
        yield OptionList(id="sources")
        with Collapsible(title="Reasoning (Ctrl+R)", id="reasoning"), VerticalScroll(id="reasoning-box"):
            yield Static("", id="reasoning-text")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#sources", OptionList).border_title = "Sources"
        self.query_one("#answer-box").border_title = "Answer"
        box = self.query_one("#question", QuestionInput)
        try:
            box.history = [t.question for t in reversed(self.app.kb.history(100))]
        except PikeError:
            box.history = []  # a new KB has no history yet
        box.focus()

    # --- asking --------------------------------------------------------------------------------------

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "rounds":
            self.query_one("#question").focus()
            return
        if event.input.id != "question":
            return
        question = event.value.strip()
        if not question:
            self.notify("Type a question first.", severity="warning")
            return
        rounds = self._rounds()
        if rounds is None:
            return
        kb = self.app.kb
        if not kb.exists():
            self.notify("This knowledge base holds no documents yet: add some in the Library (F3).", severity="error")
            return
        mode = answer_mode(str(self.query_one("#mode", Select).value))

        def work(sink: EventSink) -> QueryTrace:
            return kb.ask(question, AskRequest(mode, rounds), sink)

        self.post_message(StartJob(JOB, work, self, (question, mode)))

    def on_job_started(self, message: JobStarted) -> None:
        if message.job != JOB:
            return
        question, mode = message.detail
        self._working = True
        self.query_one("#question", QuestionInput).remember(question)
        self.trace, self._streamed, self._steps = None, "", []
        self._set_answer(Text(""))
        self.query_one("#sources", OptionList).clear_options()
        self.query_one("#reasoning-text", Static).update("")
        self._status(f"Answering in {mode} mode… (the model loads on first use; Esc cancels)")

    def _rounds(self) -> int | None:
        raw = self.query_one("#rounds", Input).value.strip()
        if not raw.isdigit() or not 1 <= int(raw) <= 20:
            self.notify(f"Rounds must be a whole number from 1 to 20, not '{raw}'.", severity="error")
            return None
        return int(raw)

    def on_work_event(self, message: WorkEvent) -> None:
        if message.job != JOB:
            return
        event = message.event
        if isinstance(event, AnswerDelta):
            if not self._streamed:
                self._status("Writing the answer… (Esc cancels)")
            self._streamed += event.text
            self._set_answer(answer_content(self._streamed, ()))
        elif isinstance(event, ReasoningStep):
            self._steps.append(step_text(event))
            self.query_one("#reasoning-text", Static).update(Text("\n").join(self._steps))
            self._status(f"Round {event.round} · {event.kind}: {clip(event.text, 50)} … (Esc cancels)")

    def on_work_done(self, message: WorkDone) -> None:
        if message.job == JOB:
            self._working = False
            self.show_trace(message.result)

    def on_work_failed(self, message: WorkFailed) -> None:
        if message.job != JOB:
            return
        self._working = False
        if message.cancelled:
            self._status("Cancelled: no answer was stored (finished model calls are cached).")
            self.notify("Answer cancelled.", severity="warning")
        else:
            self._status(f"Failed: {message.error}")
            self.notify(message.error, title="Could not answer", severity="error")

    # --- showing an answer ---------------------------------------------------------------------------

    def show_trace(self, trace: QueryTrace) -> None:
        """Show a finished (or reopened) answer with its sources and reasoning."""
        self.trace = trace
        answer = trace.answer
        body = answer_content(answer.text, [s.number for s in answer.sources])
        notes = []
        if answer.matched:
            notes.append("citations " + "".join(f"[{n}]" for n in answer.matched) + " were added by matching")
        if answer.removed_citations:
            notes.append(f"{answer.removed_citations} citation(s) naming no source were removed")
        if answer.unsupported:
            notes.append("the sources do not hold the answer")
        if notes:
            body = body + "\n\n" + ("(" + "; ".join(notes) + ")")
        if checked := claim_lines(answer, width=max(30, self.size.width - 40)):
            body = body + "\n\n" + Content("\n".join(checked)).stylize("dim")
        self._set_answer(body)
        sources = self.query_one("#sources", OptionList)
        sources.clear_options()
        width = max(40, self.size.width - 8)
        sources.add_options(
            Option(
                source_prompt(
                    s, width, s.number in answer.cited, answer.text, evidence_text(answer, s.number), trace.question
                ),
                id=str(s.number),
            )
            for s in answer.sources
        )
        if answer.sources:
            sources.highlighted = 0
        self.query_one("#reasoning-text", Static).update(reasoning_text(trace))
        self._status(summary_line(trace))
        self.query_one("#question", QuestionInput).value = trace.question

    def load_trace(self, trace_id: int) -> None:
        try:
            self.show_trace(self.app.kb.trace(trace_id))
        except PikeError as exc:
            self.notify(str(exc), severity="error")

    def action_open_source(self, number: int) -> None:
        from pikelocal.tui.screens.viewer import DocumentViewer

        source = next((s for s in self.trace.answer.sources if s.number == number), None) if self.trace else None
        if source is None:
            self.notify(f"There is no source [{number}] (yet).", severity="warning")
            return
        answer = self.trace.answer if self.trace else None
        excerpt = ""
        if answer and number in answer.cited:
            excerpt = evidence_text(answer, number) or cited_excerpt(source, answer.text)
        try:
            viewer = DocumentViewer(self.app.kb, source, excerpt if excerpt != source.text else "")
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        self.app.push_screen(viewer)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        if event.option.id is not None:
            self.action_open_source(int(event.option.id))

    # --- actions -------------------------------------------------------------------------------------

    def action_cancel(self) -> None:
        if self._working:
            self.post_message(CancelJob(JOB))
        else:
            self.query_one("#question").focus()

    def action_toggle_reasoning(self) -> None:
        panel = self.query_one("#reasoning", Collapsible)
        panel.collapsed = not panel.collapsed

    def action_cycle_mode(self) -> None:
        select = self.query_one("#mode", Select)
        modes = list(ANSWER_MODES)
        select.value = modes[(modes.index(answer_mode(str(select.value))) + 1) % len(modes)]
        self.notify(f"Mode: {select.value}", timeout=2)

    def action_focus_sources(self) -> None:
        self.query_one("#sources", OptionList).focus()

    def _set_answer(self, content: object) -> None:
        self.query_one("#answer", AnswerView).update(content)  # type: ignore[arg-type]

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(Text(text, style="dim"))
