"""The document viewer: a page of a document with line numbers, the cited lines highlighted; page with ← →.

``r`` lists the page's citations of laws (依…法第N条) and opens the cited article in a viewer of its own; Escape
comes back to the citing page.

The document's recorded tables are drawn as tables (each row beside its line number); ``t`` shows their Markdown.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from pikelocal.api import KnowledgeBase
from pikelocal.domain.answers import Source
from pikelocal.domain.errors import PikeError
from pikelocal.domain.references import StoredRef
from pikelocal.tui.render import cited_lines, excerpt_lines, file_name, page_table, table_spans
from pikelocal.tui.screens.dialogs import RefsDialog


class DocumentViewer(Screen[None]):
    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back"),
        Binding("left,p", "page(-1)", "Prev page"),
        Binding("right,n", "page(1)", "Next page"),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("c", "cited", "Cited page"),
        Binding("t", "tables", "Tables"),  # shown only for a document with tables (check_action)
        Binding("r", "refs", "Citations"),  # shown only for a document citing laws in the KB (check_action)
    ]

    def __init__(self, kb: KnowledgeBase, source: Source, excerpt: str = "") -> None:
        """``excerpt``: the sentence of the source the answer rests on; its lines get the strong highlight."""
        super().__init__()
        self.kb, self.source, self.excerpt = kb, source, excerpt
        self.pages = kb.page_numbers(source.doc_id)
        self.tables = kb.tables(source.doc_id)  # raises when the document was removed meanwhile
        self.raw_tables = False  # True: tables as their Markdown lines
        try:  # its citations of laws, to follow with r (a KB that cannot be read for them: none to follow)
            self.refs = kb.references(str(source.doc_id))[0]
        except PikeError:
            self.refs = []
        if not self.pages:
            raise PikeError(f"{file_name(source.path)} has no stored pages")
        start = source.page_start or self.pages[0]
        self.index = self.pages.index(start) if start in self.pages else 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="viewer-head")
        with VerticalScroll(id="page-box"):
            yield Static("", id="page")
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = file_name(self.source.path)
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "tables":
            return bool(self.tables)
        if action == "refs":
            return any(r.resolved for r in self.refs)
        return True

    def _show(self, *, scroll: bool = True) -> None:
        page_no = self.pages[self.index]
        try:
            page = self.kb.page(self.source.doc_id, page_no)
        except PikeError as exc:
            self.notify(str(exc), severity="error")
            return
        lines = page.lines()
        marked = cited_lines(self.source, page_no, len(lines))
        strong = excerpt_lines(lines, self.excerpt, marked) if self.excerpt else set()
        unpaged = self.source.page_start is None and len(self.pages) == 1  # a .docx without page breaks, an .xlsx
        head = f"{file_name(self.source.path)} · " + ("unpaged" if unpaged else f"page {page_no} of {self.pages[-1]}")
        if marked:
            head += f" · [{self.source.number}] lines {min(marked)}–{max(marked)}"
            if strong:
                head += f", cited sentence on line {min(strong)}" + (f"–{max(strong)}" if len(strong) > 1 else "")
        if self.raw_tables and table_spans(page, self.tables):
            head += " · tables as Markdown (t)"
        tables = () if self.raw_tables else self.tables
        self.query_one("#viewer-head", Static).update(head)
        self.query_one("#page", Static).update(page_table(page, marked, strong, tables))
        if not scroll:
            return
        box = self.query_one("#page-box", VerticalScroll)
        box.scroll_home(animate=False)
        if marked:  # bring the cited sentence (or the source's first line) near the top; rows may wrap
            self.call_after_refresh(box.scroll_to, 0, max(0, min(strong or marked) - 3), animate=False)

    @property
    def page_no(self) -> int:
        return self.pages[self.index]

    def action_page(self, step: int) -> None:
        index = min(max(self.index + step, 0), len(self.pages) - 1)
        if index != self.index:
            self.index = index
            self._show()

    def action_first(self) -> None:
        self.action_page(-len(self.pages))

    def action_last(self) -> None:
        self.action_page(len(self.pages))

    def action_tables(self) -> None:
        self.raw_tables = not self.raw_tables
        self._show(scroll=False)

    def page_refs(self) -> list[StoredRef]:
        """The citations in the chunks on the page shown (all of an unpaged document's)."""
        page = self.page_no
        return [r for r in self.refs if r.page is None or (r.page <= page <= (r.page_end or r.page))]

    def action_refs(self) -> None:
        """Pick a citation on this page and open the cited article in a viewer of its own (Escape comes back)."""
        here = self.page_refs()
        if not any(r.resolved for r in here):
            self.notify("No citation on this page leads to a law in this knowledge base.")
            return

        def follow(ref: StoredRef | None) -> None:
            if ref is None or ref.target_chunk is None:
                return
            try:
                article = self.kb.chunk_source(ref.target_chunk)
                self.app.push_screen(DocumentViewer(self.kb, article))
            except PikeError as exc:
                self.notify(str(exc), severity="error")

        self.app.push_screen(RefsDialog(here), follow)

    def action_cited(self) -> None:
        start = self.source.page_start
        if start in self.pages:
            self.index = self.pages.index(start)
            self._show()
