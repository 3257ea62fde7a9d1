"""The `pikelocal` group, its global flags, and ``main``: every PikeError becomes one line and an exit code
(--debug: traceback)."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path

import click

from pikelocal import __version__, api
from pikelocal.cli import answering, checks, evaluation, keys, library, models, refs, review, search, settings
from pikelocal.cli import tui as tui_command
from pikelocal.cli.held_warnings import damage_warnings_held

GLOBAL_FLAGS = {  # the settings the global flags set, for `pikelocal config` and the errors
    "llm.backend": "--llm-backend",
    "llm.model": "--llm-model",
    "llm.base_url": "--llm-url",
    "encoder.model": "--encoder",
    "llm.threads": "--threads",
    "encoder.threads": "--threads",
    "llm.gpu_layers": "--gpu-layers",
    "encoder.force": "--force",
}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="pikelocal")
@click.option(
    "--config",
    type=click.Path(path_type=Path),
    help=api.CONFIG_FILE_HELP,
)
@click.option("--llm-backend", type=click.Choice(["llama_cpp", "openai"]), help="In-process or HTTP server.")
@click.option("--llm-model", help="default | fast | tiny | path.gguf | the server's model name.")
@click.option("--llm-url", help="OpenAI-compatible server URL, e.g. http://127.0.0.1:8080/v1.")
@click.option("--encoder", help="default (EmbeddingGemma) | minilm | path to an encoder folder.")
@click.option("--threads", type=int, help="CPU threads for the models (default: all cores).")
@click.option("--gpu-layers", type=int, help="LLM layers to offload to the GPU (-1: all; needs a GPU build).")
@click.option(
    "--force",
    is_flag=True,
    help="Open a KB even when this encoder's numbers differ from those it was built with (recall may drop).",
)
@click.option("--debug", is_flag=True, help="Show tracebacks and debug logging.")
@click.option(
    "--key-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File whose first line is the key of an encrypted KB (mode 600). Else $PIKELOCAL_KEY, else asked.",
)
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
    force: bool,
    debug: bool,
    key_file: Path | None,
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
        "encoder.force": True if force else None,
    }
    ctx.ensure_object(dict).update(config=config, overrides=overrides, flags=GLOBAL_FLAGS, debug=debug)
    if key_file is not None:
        ctx.obj["key_file"] = key_file


for command in (
    models.models, checks.doctor, checks.demo, models.calibrate,
    library.ingest, library.enrich, library.reembed, library.docs, library.stats, library.rm, library.recover,
    keys.encrypt, keys.rekey, keys.decrypt,
    search.search, refs.refs,
    answering.ask, answering.trace, answering.history,
    review.review, review.mark, review.figures,
    tui_command.tui,
    settings.config,
    evaluation.eval_group,
):  # fmt: skip
    cli.add_command(command)


def _stop_on_sigterm(signum: int, frame: object) -> None:
    """`kill` (SIGTERM) stops like Ctrl-C: the running write rolls back and finished work is kept."""
    raise KeyboardInterrupt


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args or bool(os.environ.get("PIKELOCAL_DEBUG"))
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop_on_sigterm)
    try:
        with damage_warnings_held():  # one line for a damaged KB: the warning, or the error that ended the command
            code = cli.main(args=args, prog_name="pikelocal", standalone_mode=False)
    except api.PikeError as exc:
        if debug:
            raise
        click.echo(api.shown_name(f"Error: {exc}"), err=True)  # one line, whatever a file name or server sent
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:  # click's form of Ctrl-C (and of SIGTERM, see _stop_on_sigterm)
        click.echo("Interrupted. Finished work is kept: run the same command again to continue.", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        click.echo("Interrupted. Finished work is kept: run the same command again to continue.", err=True)
        sys.exit(130)
    except Exception as exc:  # last resort: one line, never a traceback without --debug
        if debug:
            raise
        click.echo(
            api.shown_name(f"Error: unexpected {type(exc).__name__}: {exc} (run with --debug for details)"), err=True
        )
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)
