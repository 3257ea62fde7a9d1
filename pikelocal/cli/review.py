"""Commands of a document review: `review` (run a checklist, or export its stored rows), `mark` (the
reviewer's mark and note on a row) and `figures` (the key-figures sheet, without the LLM)."""

from __future__ import annotations

from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import llm_settings, settings_of
from pikelocal.cli.keys import key_file_option, open_kb
from pikelocal.cli.output import (
    BID_CHECK,
    KEY_FIGURE,
    MARKS_IMPORT,
    REQUIREMENT,
    REVIEW_ROW,
    RISK,
    TIMELINE_ENTRY,
    echo_records,
    json_option,
)
from pikelocal.cli.progress import ProgressPrinter
from pikelocal.cli.side_by_side import SIDE_BY_SIDE, run_side_by_side

ALL_DOCUMENTS = "\0all"  # --requirements without a document: every document's


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("per_document_docs", metavar="[DOC]...", nargs=-1)
@click.option("--checklist", "checklist", help="A built-in checklist (see --list) or a checklist TOML file.")
@click.option("--docs", "docs", multiple=True, help="Only this document (id, path, file name); repeatable.")
@click.option(
    "--script", type=click.Choice(["hans", "hant", "en"]), help="The items' questions (default: the documents')."
)
@click.option("--fresh", is_flag=True, help="Ask every item again, even those answered on the KB as it is.")
@click.option(
    "--export",
    "export_to",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the stored rows to a report (.md, .csv, .html, .docx or .xlsx) instead of running; no model is"
    " loaded. With --risks, --requirements or --timeline: those views (.md, .csv, or .xlsx with one sheet per view).",
)
@click.option(
    "--import-marks",
    "import_from",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Store the marks and notes filled in in a workbook, no model loaded: a review workbook (--checklist C"
    " --export FILE.xlsx; give --checklist C), matched by item id, or the views' (--risks … --export FILE.xlsx),"
    " matched by row id.",
)
@click.option(
    "--mark",
    "mark_row",
    nargs=2,
    metavar="ROW_ID MARK",
    help="With one of --risks, --requirements, --timeline: mark the row ROW_ID (as the listing shows it) accepted,"
    " wrong or to_check (none clears it); every mark is kept.",
)
@click.option("--note", "note", default=None, help="With --mark: the reviewer's note, kept with the mark and its time.")
@click.option("--list", "list_only", is_flag=True, help="List the built-in checklists and stop.")
@click.option("--risks", "show_risks", is_flag=True, help="Every clause that rejects a bid, by stage (no model).")
@click.option(
    "--requirements",
    "requirements_of",
    is_flag=False,
    flag_value=ALL_DOCUMENTS,
    default=None,
    metavar="[TENDER_DOC]",
    help="Every sentence that binds someone, as rows (no model); with a document's name, its requirements, which"
    " --against checks.",
)
@click.option(
    "--against",
    "against",
    metavar="BID_DOC",
    help="With --requirements TENDER_DOC: each requirement with the bid's sentence that answers it: met, not found,"
    " or differs (the figures disagree), both cited (the encoder, no LLM).",
)
@click.option("--timeline", "show_timeline", is_flag=True, help="Every dated or relative deadline, sorted (no model).")
@click.option(
    "--per-document",
    "per_document",
    is_flag=True,
    help="Run the checklist once per document (the DOCs after KB, else every one) and show them side by side,"
    " differences marked. With --export: the table of the rows stored so far (.md, .csv, .xlsx, .docx), no model.",
)
@json_option(REVIEW_ROW, RISK, REQUIREMENT, TIMELINE_ENTRY, BID_CHECK, MARKS_IMPORT, SIDE_BY_SIDE)
@key_file_option
@click.pass_context
def review(
    ctx: click.Context,
    kb: Path,
    checklist: str | None,
    docs: tuple[str, ...],
    script: str | None,
    fresh: bool,
    export_to: Path | None,
    import_from: Path | None,
    list_only: bool,
    show_risks: bool,
    requirements_of: str | None,
    against: str | None,
    show_timeline: bool,
    per_document: bool,
    per_document_docs: tuple[str, ...],
    mark_row: tuple[str, str] | None,
    note: str | None,
    as_json: bool,
) -> None:
    """Run a checklist over KB: each item answered with a quote, its value compared across documents, and stored.

    Items already answered on the KB as it is are not asked again, so Ctrl-C keeps what finished and running it
    again continues. `--export report.docx` writes the stored rows with the reviewer's marks; `--export
    review.xlsx` writes a workbook whose mark and note columns the reviewer fills in, and `--import-marks
    review.xlsx` stores them back.

    `--risks`, `--requirements` and `--timeline` list what a reviewer reads first, found without the LLM: every
    clause that rejects a bid (by stage), every sentence that binds someone, every deadline; each row with its id
    and the reviewer's mark and note. `--risks --mark ROW_ID accepted --note "…"` marks one row; `--export
    views.xlsx` writes mark and note columns to fill in, and `--import-marks views.xlsx` stores them back.

    `--requirements TENDER_DOC --against BID_DOC` checks a bid against its tender: for each requirement the bid
    must answer, the bid's sentence that does, and whether it is met, not found, or differs in its figures.
    """
    if note is not None and mark_row is None:
        raise api.InputError('--note goes with --mark: --risks --mark ROW_ID accepted --note "…"')
    if against is not None:
        if requirements_of in (None, ALL_DOCUMENTS):
            raise api.InputError("--against BID_DOC needs the tender: --requirements TENDER_DOC --against BID_DOC")
        if checklist or fresh or script or list_only or show_risks or show_timeline or docs or import_from or mark_row:
            raise api.InputError(
                "--against checks one bid against one tender: drop --checklist, --fresh, --script, --list, --risks,"
                " --timeline, --docs, --import-marks and --mark"
            )
        _against(ctx, kb, requirements_of, against, export_to, as_json)
        return
    if requirements_of not in (None, ALL_DOCUMENTS):
        docs = (*docs, requirements_of)
    views = {"risks": show_risks, "requirements": requirements_of is not None, "timeline": show_timeline}
    if any(views.values()):
        if checklist or fresh or script or list_only or import_from:
            raise api.InputError(
                "--risks, --requirements and --timeline read no checklist: drop --checklist, "
                "--fresh, --script, --list and --import-marks"
            )
        if mark_row is not None:
            _mark_view_row(ctx, kb, views, export_to, mark_row, note or "", as_json)
            return
        _views(ctx, kb, docs, views, export_to, as_json)
        return
    if mark_row is not None:
        raise api.InputError(
            "--mark ROW_ID MARK marks a row of a view: give one of --risks, --requirements, --timeline"
        )
    if import_from is not None and not checklist and not list_only:
        if export_to is not None or fresh or docs or script or per_document or per_document_docs:
            raise api.InputError(
                "--import-marks reads a workbook into the KB: drop --export, --fresh, --docs, --script and"
                " --per-document"
            )
        _import_marks(ctx, kb, None, import_from, as_json)
        return
    if list_only:
        for name in api.builtin_checklists():
            click.echo(name)
        return
    if not checklist:
        raise api.InputError("name a checklist: --checklist tender-zh (see --list) or --checklist FILE.toml")
    if per_document_docs and not per_document:
        raise api.InputError("documents after KB are read with --per-document; else name them with --docs")
    if import_from is not None:
        if export_to is not None or fresh or docs or script:
            raise api.InputError(
                "--import-marks reads a workbook into the KB: drop --export, --fresh, --docs and --script"
            )
        _import_marks(ctx, kb, checklist, import_from, as_json)
        return
    if per_document:
        run_side_by_side(ctx, kb, checklist, (*per_document_docs, *docs), script, fresh, export_to, as_json)
        return
    if export_to is not None:
        with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
            written = knowledge_base.export_review(checklist, export_to)
        click.echo(api.shown_name(f"Wrote {written}"))
        return
    request = api.ReviewRequest(checklist, tuple(docs), script, fresh)  # type: ignore[arg-type]  # click.Choice
    with open_kb(ctx, kb, llm_settings(ctx)) as knowledge_base:
        report = knowledge_base.review(request, ProgressPrinter())
    if as_json:
        echo_records(REVIEW_ROW, report.rows)
        return
    for row in report.rows:
        _print_row(row)
    n = {v: sum(r.verdict == v for r in report.rows) for v in api.VERDICT_NAMES}
    click.echo(
        f"{report.checklist.name}: {len(report.rows)} items, {n['found']} found, {n['to_check']} to check,"
        f" {n['not_stated']} not stated, {n['conflicting']} in conflict; {report.asked} asked now in"
        f" {report.seconds:.0f} s, {report.kept} kept."
    )


def _import_marks(ctx: click.Context, kb: Path, checklist: str | None, workbook: Path, as_json: bool) -> None:
    """The workbook's marks stored; each row not taken on a line of its own; exit 1 when any was not taken."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        done = knowledge_base.import_marks(checklist, workbook)
    if as_json:
        echo_records(MARKS_IMPORT, done)
    else:
        for line in done.errors:
            click.echo(api.printable(f"  not taken  {line}"))
        read_from = ", ".join(n for n in (done.checklist, *done.views) if n)
        click.echo(
            api.printable(
                f"{read_from}: {done.read} rows read from {done.workbook}: {done.changed} changed,"
                f" {done.unchanged} unchanged, {len(done.errors)} not taken."
            )
        )
    if done.errors:
        ctx.exit(1)


def _views(
    ctx: click.Context, kb: Path, docs: tuple[str, ...], views: dict[str, bool], export_to: Path | None, as_json: bool
) -> None:
    """The reviewer's first views, printed, as JSON (one view at a time) or exported."""
    if as_json and sum(views.values()) > 1:
        raise api.InputError("--json prints one view at a time: give one of --risks, --requirements, --timeline")
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        risks = knowledge_base.risks(docs) if views["risks"] else []
        requirements = knowledge_base.requirements(docs) if views["requirements"] else []
        timeline = knowledge_base.timeline(docs) if views["timeline"] else []
        if export_to is not None:
            written = knowledge_base.export_views(export_to, risks, requirements, timeline)
            click.echo(api.shown_name(f"Wrote {written}"))
            return
    if as_json:
        record, rows = next(
            (r, v) for r, v, on in ((RISK, risks, views["risks"]), (REQUIREMENT, requirements, views["requirements"]),
                                    (TIMELINE_ENTRY, timeline, views["timeline"])) if on
        )  # fmt: skip
        echo_records(record, rows)
        return
    if views["risks"]:
        _print_risks(risks)
    if views["requirements"]:
        _print_requirements(requirements)
    if views["timeline"]:
        _print_timeline(timeline)


def _mark_view_row(
    ctx: click.Context, kb: Path, views: dict[str, bool], export_to: Path | None, mark_row: tuple[str, str],
    note: str, as_json: bool,
) -> None:  # fmt: skip
    """One row of one view marked; the row printed as its listing shows it, or as JSON (an array of that row)."""
    named = [v for v, on in views.items() if on]
    if len(named) != 1 or export_to is not None:
        raise api.InputError(
            "--mark ROW_ID MARK marks a row of one view: give one of --risks, --requirements, --timeline"
        )
    row_id, value = mark_row
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        row = knowledge_base.view_mark(named[0], row_id, "" if value == "none" else value, note)
    if as_json:
        echo_records({"risks": RISK, "requirements": REQUIREMENT, "timeline": TIMELINE_ENTRY}[named[0]], [row])
        return
    click.echo(
        api.printable(f"{row.row_id}: {value}" + (f" ({row.note})" if row.note else "") + f" at {row.marked_at}")
    )
    click.echo(api.printable(f"  “{row.clause.text}” — {row.clause.where.citation()}"))


def _mark_line(row: api.ViewRow) -> None:
    """The row's mark and note under it, when it has one."""
    if row.mark or row.note:
        mark = api.MARK_NAMES.get(row.mark, row.mark) or "no mark"
        click.echo(api.printable(f"      {mark}" + (f": {row.note}" if row.note else "") + f"  ({row.marked_at})"))


def _against(ctx: click.Context, kb: Path, tender: str, bid: str, export_to: Path | None, as_json: bool) -> None:
    """A bid checked against its tender, printed one row per requirement, as JSON or exported."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        checks = knowledge_base.against(tender, bid)
        if export_to is not None:
            written = knowledge_base.export_views(export_to, bid_checks=checks)
            click.echo(api.shown_name(f"Wrote {written}"))
            return
    if as_json:
        echo_records(BID_CHECK, checks)
        return
    for c in checks:
        _print_check(c)
    n = {s: sum(c.state == s for c in checks) for s in api.BID_CHECK_STATES}
    click.echo(
        f"\n{len(checks)} requirements of the bid: {n['met']} met, {n['not_found']} not found, {n['differs']} differ"
    )


def _print_check(c: api.BidCheck) -> None:
    req = c.requirement.clause
    click.echo(api.printable(f"[{api.BID_CHECK_NAMES[c.state]}] “{req.text}” — {req.where.citation()}"))
    if c.answer is not None:
        click.echo(api.printable(f"    bid: “{c.answer.text}” — {c.answer.where.citation()}"))
    for f in c.figures:
        if f.offered is not None and not f.meets:
            want = {"min": "at least ", "max": "at most "}.get(f.bound, "")
            click.echo(api.printable(f"    required {want}{f.required.normal}, offered {f.offered.normal}"))


def _print_risks(risks: list[api.Risk]) -> None:
    for stage in api.RISK_STAGES:
        group = [r for r in risks if r.stage == stage]
        if not group:
            continue
        click.echo(f"\n## {api.STAGE_NAMES[stage]} ({len(group)})")
        for r in group:
            click.echo(
                api.printable(
                    f"  {r.row_id}  “{r.clause.text}” — {r.clause.where.citation()}  [{', '.join(r.triggers)}]"
                )
            )
            _mark_line(r)
    click.echo(f"\n{len(risks)} rejection risks")


def _print_requirements(requirements: list[api.Requirement]) -> None:
    for r in requirements:
        who = api.PARTY_NAMES[r.party] or "-"
        figures = "; ".join(dict.fromkeys(v.normal for v in r.figures))
        head = f"{r.row_id}  [{r.kind}] {who}: “{r.clause.text}” — {r.clause.where.citation()}"
        click.echo(api.printable(head + (f"  ({figures})" if figures else "")))
        _mark_line(r)
    click.echo(f"\n{len(requirements)} requirements")


def _print_timeline(timeline: list[api.TimelineEntry]) -> None:
    for e in timeline:
        when = f"{e.date} ({e.roc})" if e.date else f"(relative) {e.value}"
        click.echo(api.printable(f"{e.row_id}  {when:<34} {e.what} — “{e.clause.text}” — {e.clause.where.citation()}"))
        _mark_line(e)
    click.echo(f"\n{len(timeline)} deadlines")


def _print_row(row: api.ReviewRow) -> None:
    value = " / ".join(dict.fromkeys(v.normal for v in row.values))
    head = f"[{api.VERDICT_NAMES[row.verdict]}] {row.label}: {row.answer}" + (f"  ({value})" if value else "")
    click.echo(api.printable(head))
    for q in row.quotes:
        click.echo(api.printable(f"    “{q.text}” — {q.where.citation()}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("checklist")
@click.argument("item")
@click.argument("value", type=click.Choice(["accepted", "wrong", "to_check", "none"]))
@click.option("--note", default="", help="The reviewer's note, kept with the mark and its time.")
@key_file_option
@click.pass_context
def mark(ctx: click.Context, kb: Path, checklist: str, item: str, value: str, note: str) -> None:
    """Mark an answered checklist item accepted, wrong or to_check (none clears it); every mark is kept."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        row = knowledge_base.review_mark(checklist, item, "" if value == "none" else value, note)
    click.echo(api.printable(f"{row.label}: {value}" + (f" ({row.note})" if row.note else "") + f" at {row.marked_at}"))


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.option("--docs", "docs", multiple=True, help="Only this document (id, path, file name); repeatable.")
@json_option(KEY_FIGURE)
@key_file_option
@click.pass_context
def figures(ctx: click.Context, kb: Path, docs: tuple[str, ...], as_json: bool) -> None:
    """List every amount, date, duration and percentage in KB with its sentence and page, by heading (no LLM).

    The reviewer's first look at a tender or contract, ready as soon as the documents are ingested."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        found = knowledge_base.key_figures(docs)
    if as_json:
        echo_records(KEY_FIGURE, found)
        return
    heading = None
    for f in found:
        if f.heading != heading:
            heading = f.heading
            click.echo(api.printable(f"\n## {heading or '(no heading)'}"))
        line = f"{f.value.kind:<10} {f.value.normal:<18} {f.sentence}  — {f.where.citation()}"
        click.echo(api.printable(line))
    click.echo(f"\n{len(found)} figures")
