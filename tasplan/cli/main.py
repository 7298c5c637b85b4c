"""The ``tasplan`` console script: a command line the fast parser takes runs without
building the Typer app (Typer, Rich's help and pydantic cost more than most runs); the
rest (``--help``, completion, usage errors, anything unusual) goes to Typer."""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> None:
    from tasplan.cli import teardown

    teardown.enable()
    args = sys.argv[1:]
    if args == ["--version"]:  # what the Typer app's eager --version prints
        from tasplan.version import __version__

        sys.stdout.write(f"tasplan {__version__}\n")
        teardown.exit_now(0)
    prog = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else "tasplan"
    from tasplan.cli import dataclass_code
    from tasplan.stdio import on_exit

    dataclass_code.install(dataclass_code.cache_path())
    on_exit(dataclass_code.save)
    from tasplan.cli import fast

    parsed = fast.parse(args)
    if parsed is not None:
        from tasplan.cli import commands

        name, kwargs = parsed
        teardown.exit_now(commands.invoke(name, kwargs, fast.command_args(args)))
    from tasplan.cli.app import app

    app(args=args, prog_name=prog)
