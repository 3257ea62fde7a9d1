"""`pikelocal config`: the effective settings and where each came from (default, file, environment, flag)."""

from __future__ import annotations

from typing import Any

import click

from pikelocal import api
from pikelocal.cli.common import effective_settings
from pikelocal.cli.output import SETTING, echo_records, json_option

HIDDEN = "(hidden)"


@click.command()
@json_option(SETTING)
@click.pass_context
def config(ctx: click.Context, as_json: bool) -> None:
    """Print the effective settings and where each came from: default, config file, environment variable or flag."""
    effective = effective_settings(ctx)
    rows = [setting_row(d, effective) for d in api.SCHEMA]
    if as_json:
        echo_records(SETTING, rows)
        return
    if effective.config_file is None:
        click.echo("config file: none (see `pikelocal --help`, --config)")
    else:
        click.echo(api.shown_name(f"config file: {effective.config_file} (chosen by {effective.config_chosen_by})"))
    width = max(len(d.key) for d in api.SCHEMA)
    for row in rows:
        origin = api.Origin(row["source"], row["where"] or "").describe()
        click.echo(api.printable(f"{row['key']:<{width}}  {_toml(row['value']):<24}  {origin}"))


def setting_row(declared: api.Declared, effective: api.Effective) -> dict[str, Any]:
    """One ``setting`` record (:data:`SETTING`): a secret's value shows only whether it is set."""
    value, default = effective.value(declared.key), declared.default
    if declared.spec.secret:
        value, default = (HIDDEN if value else ""), (HIDDEN if default else "")
    origin = effective.origin(declared.key)
    return {
        "key": declared.key,
        "value": value,
        "default": default,
        "source": origin.source,
        "where": origin.where or None,
        "env": declared.env,
    }


def _toml(value: Any) -> str:
    """``value`` as a config file would write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f'"{value}"' if isinstance(value, str) else str(value)
