"""Command line: `pikelocal …`. Turns every PikeError into one line and an exit code (--debug: traceback)."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from pikelocal import __version__, api
from pikelocal.errors import PikeError

OWN_MODELS_HELP = """\
Use your own models (nothing is ever downloaded):
  GGUF LLM     pikelocal --llm-model /path/to/model.gguf …      or  PIKELOCAL_LLM_MODEL=/path/to/model.gguf
  LLM server   pikelocal --llm-backend openai --llm-url http://127.0.0.1:8080/v1 --llm-model NAME …
  ONNX encoder pikelocal --encoder /path/to/folder …            or  PIKELOCAL_ENCODER_MODEL=/path/to/folder
               (a folder with encoder.json, the .onnx model and tokenizer.json; see models/README.md)"""


def _settings(ctx: click.Context) -> api.Settings:
    obj: dict[str, Any] = ctx.ensure_object(dict)
    if "settings" not in obj:
        obj["settings"] = api.load_settings(obj.get("config"), obj.get("overrides"))
    return obj["settings"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pikelocal")
@click.option("--config", type=click.Path(path_type=Path), help="Settings file (default ./pikelocal.toml).")
@click.option("--llm-backend", type=click.Choice(["llama_cpp", "openai"]), help="In-process or HTTP server.")
@click.option("--llm-model", help="default | fast | tiny | path.gguf | the server's model name.")
@click.option("--llm-url", help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1.")
@click.option("--encoder", help="default (EmbeddingGemma) | minilm | path to an encoder folder.")
@click.option("--threads", type=int, help="CPU threads for the models (default: all cores).")
@click.option("--gpu-layers", type=int, help="LLM layers to offload to the GPU (-1: all; needs a GPU build).")
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logging.")
@click.pass_context
def cli(
    ctx: click.Context,
    config: Path | None,
    llm_backend: str | None,
    llm_model: str | None,
    llm_url: str | None,
    encoder: str | None,
    threads: int | None,
    gpu_layers: int | None,
    debug: bool,
) -> None:
    """pikelocal: ask grounded, cited questions of your documents, offline, in one SQLite file."""
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    overrides = {
        "llm.backend": llm_backend,
        "llm.model": llm_model,
        "llm.base_url": llm_url,
        "encoder.model": encoder,
        "llm.threads": threads,
        "encoder.threads": threads,
        "llm.gpu_layers": gpu_layers,
    }
    ctx.ensure_object(dict).update(config=config, overrides=overrides, debug=debug)


@cli.command()
@click.option("--verify", is_flag=True, help="Re-hash every file instead of trusting the last verification.")
@click.pass_context
def models(ctx: click.Context, verify: bool) -> None:
    """List installed models: verified, missing or corrupt."""
    manifest, statuses = api.model_statuses(_settings(ctx), full=verify)
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


@cli.command()
@click.argument("kb", required=False, type=click.Path(path_type=Path))
@click.option("--verify", is_flag=True, help="Re-hash model files.")
@click.pass_context
def doctor(ctx: click.Context, kb: Path | None, verify: bool) -> None:
    """Check versions, CPU/GPU, models, and (given KB) a knowledge-base file."""
    sections = api.doctor(_settings(ctx), kb, full=verify)
    for section in sections:
        click.echo(click.style(section.title, bold=True))
        for check in section.checks:
            mark = {True: click.style("ok  ", fg="green"), False: click.style("FAIL", fg="red"), None: "    "}
            click.echo(f"  {mark[check.ok]} {check.name:<24} {check.value}")
    if any(s.failed for s in sections):
        ctx.exit(1)


@cli.command()
@click.argument("kb", default="demo.kb", type=click.Path(path_type=Path))
@click.pass_context
def demo(ctx: click.Context, kb: Path) -> None:
    """Run the default models end to end and write a small KB file (default ./demo.kb)."""
    api.demo(_settings(ctx), kb, click.echo)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("PIKELOCAL_DEBUG"))
    try:
        code = cli.main(args=args, prog_name="pikelocal", standalone_mode=False)
    except PikeError as exc:
        if debug:
            raise
        click.echo(f"Error: {exc}", err=True)
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: one line, never a traceback without --debug
        if debug:
            raise
        click.echo(f"Error: unexpected {type(exc).__name__}: {exc} (run with --debug for details)", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
