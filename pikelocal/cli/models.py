"""Commands about the installed models: `models` (what is installed and verified) and `calibrate` (the batch width).

`doctor` and `demo`, which check the whole installation, are in :mod:`pikelocal.cli.checks`."""

from __future__ import annotations

import click

from pikelocal import api
from pikelocal.cli.common import settings_of

OWN_MODELS_HELP = """\
Use your own models (nothing is ever downloaded):
  GGUF LLM     pikelocal --llm-model /path/to/model.gguf …      or  PIKELOCAL_LLM_MODEL=/path/to/model.gguf
  LLM server   pikelocal --llm-backend openai --llm-url http://127.0.0.1:8080/v1 --llm-model NAME …
  ONNX encoder pikelocal --encoder /path/to/folder …            or  PIKELOCAL_ENCODER_MODEL=/path/to/folder
               (a folder with encoder.json, the .onnx model and tokenizer.json; see models/README.md)"""


@click.command()
@click.option("--verify", is_flag=True, help="Re-hash every file instead of trusting the last verification.")
@click.pass_context
def models(ctx: click.Context, verify: bool) -> None:
    """List installed models: verified, missing or corrupt."""
    manifest, statuses = api.model_statuses(settings_of(ctx), full=verify)
    click.echo(f"Models folder: {manifest.folder}")
    for st in statuses:
        mark = {
            "verified": click.style("ok     ", fg="green"),
            "missing": click.style("missing", fg="yellow"),
            "corrupt": click.style("CORRUPT", fg="red"),
        }[st.state]
        size = f"{st.size_bytes / 1e6:,.0f} MB" if st.state == "verified" else ""
        click.echo(f"  {mark} {st.artifact.role:<16} {st.artifact.id:<36} {size:>9}  {st.artifact.licence}")
        if st.state != "verified":
            click.echo(f"          {st.detail}")
    if any(st.state != "verified" for st in statuses):
        click.echo("Install or repair with: make models")
    click.echo("\n" + OWN_MODELS_HELP)


@click.command()
@click.option("--if-missing", is_flag=True, help="Measure only when no width is kept for this model and machine.")
@click.pass_context
def calibrate(ctx: click.Context, if_missing: bool) -> None:
    """Measure how many LLM calls to decode together on this machine (llm.batch = 0 uses it).

    llama.cpp's generation rate at 1, 2 and 4 batched sequences of the configured model, about 10-20 s; the width
    kept is the narrowest within 5 % of the best, and 1 unless batching gains 10 % or more.
    """
    settings = settings_of(ctx)
    if if_missing and (kept := api.measured_batch_width(settings)) is not None:
        click.echo(f"Batch width {kept} kept for this model on this machine (without --if-missing: measure again)")
        return
    result = api.calibrate(settings)
    rates = ", ".join(f"{w} sequence{'s' if w > 1 else ''} {tps:.1f}" for w, tps in sorted(result.rates.items()))
    click.echo(f"{result.model_id}, {result.threads} thread(s): generation tokens/s {rates}")
    click.echo(f"Batch width {result.width} kept in {result.path}")
