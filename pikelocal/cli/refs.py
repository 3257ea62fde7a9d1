"""`pikelocal refs`: the citations of laws and articles in the KB's documents, resolved or not."""

from __future__ import annotations

from pathlib import Path

import click

from pikelocal import api
from pikelocal.cli.common import settings_of
from pikelocal.cli.keys import key_file_option, open_kb
from pikelocal.cli.output import CITATION, echo_records, json_option


@click.command()
@click.argument("kb", type=click.Path(path_type=Path))
@click.argument("doc", required=False)
@click.option("--unresolved", is_flag=True, help="Only the citations whose law or article is not in the KB.")
@json_option(CITATION)
@key_file_option
@click.pass_context
def refs(ctx: click.Context, kb: Path, doc: str | None, unresolved: bool, as_json: bool) -> None:
    """List the citations of laws and articles in KB, each with the article it leads to when that law is in KB.

    DOC (id, path, file name or sha256 prefix) limits the list to one document. 依政府採購法第64條 leads to article
    64 of that law when the KB holds it."""
    with open_kb(ctx, kb, settings_of(ctx)) as knowledge_base:
        found, counts = knowledge_base.references(doc)
        paths = {d.record.id: d.record.path for d in knowledge_base.documents().documents}
    names = {doc_id: Path(path).name for doc_id, path in paths.items()}
    shown = [r for r in found if not (unresolved and r.resolved)]
    if as_json:
        rows = [
            {
                "document": paths.get(r.doc_id, str(r.doc_id)),
                "page": r.page,
                "text": r.text,
                "law": r.ref.law,
                "article": r.ref.article,
                "detail": r.ref.detail,
                "resolved": r.resolved,
                "target_document": r.target_title,
                "target_chunk": r.target_chunk,
                "target_page": r.target_page,
            }
            for r in shown
        ]
        echo_records(CITATION, rows)
        return
    for r in shown:
        where = names.get(r.doc_id, str(r.doc_id)) + (f", p. {r.page}" if r.page is not None else "")
        click.echo(api.printable(f"[{where}] {r.text} → {r.destination()}"))
    total = len(found)
    resolved = sum(r.resolved for r in found)
    scope = f"document {doc}" if doc else str(kb)
    click.echo(f"{total:,} citation(s) in {scope}: {resolved:,} resolved, {total - resolved:,} not in the KB")
