"""The Typer app: ``--help``, completion, and every command line the fast parser
(``cli/fast.py``) leaves to Typer. The commands themselves are ``cli/commands.py``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from tasplan.cli import commands, teardown
from tasplan.cli.build import command
from tasplan.cli.kubectl import KubectlGroup
from tasplan.version import __version__

app = typer.Typer(
    name="tasplan",
    cls=KubectlGroup,
    help="What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732).",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"tasplan {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="Print the tasplan version and exit.")] = False) -> None:
    """What-if planner for Kubernetes topology-aware workload scheduling (KEP-5732)."""


for _command in commands.COMMANDS:
    command(app, _command, exclude=commands.EXCLUDE.get(_command.__name__, ()))


def main() -> None:
    """The console script of installs made before ``tasplan.cli.main`` (Typer only)."""
    teardown.enable()
    app(prog_name=Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "tasplan")


if __name__ == "__main__":  # regenerate cli/spec.py, the fast parser's table
    from tasplan.cli.build import spec_source

    Path(__file__).with_name("spec.py").write_text(spec_source(app))
