"""The Typer app built from the commands (``cli/commands.py``) and their option groups
(``cli/definition.py``): each ``params`` record becomes the ``typer.Option`` /
``typer.Argument`` it stands for, and a keyword-only parameter annotated with an option
group (a dataclass) stands for the group's options, in field order."""

from __future__ import annotations

import functools
import inspect
import sys
from collections.abc import Callable, Collection
from dataclasses import MISSING, Field, fields
from typing import Annotated, Any, get_args, get_origin, get_type_hints

import typer
from typer.core import TyperCommand

from tasplan.cli import commands
from tasplan.cli.params import Argument, Option

ARGS_KEY = "tasplan.args"


class RecordingCommand(TyperCommand):
    """Records the arguments as given (the what-if flags' order, ``WhatIfOptions.args``)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        ctx.meta[ARGS_KEY] = list(args)
        return super().parse_args(ctx, args)


def hints(obj: Any) -> dict[str, Any]:
    """``obj``'s annotations, evaluated, with the ``params`` records made Typer's."""
    module = sys.modules[obj.__module__]
    out = {}
    for name, hint in get_type_hints(obj, vars(module), include_extras=True).items():
        if get_origin(hint) is Annotated:
            base, *meta = get_args(hint)
            hint = Annotated[(base, *(_typer(m) for m in meta))]
        out[name] = hint
    return out


def _typer(meta: Any) -> Any:
    if isinstance(meta, Argument):
        return typer.Argument(*meta.decls, **meta.settings)
    if isinstance(meta, Option):
        return typer.Option(*meta.decls, **meta.settings)
    return meta


def options(group: type) -> list[Field]:
    """The group's fields that are options (carry a definition)."""
    group_hints = get_type_hints(group, vars(sys.modules[group.__module__]),
                                 include_extras=True)
    return [f for f in fields(group) if getattr(group_hints[f.name], "__metadata__", None)]


def command(app: typer.Typer, func: Callable[..., int], *,
            exclude: Collection[str] = ()) -> None:
    """Register ``func`` on ``app`` under its name; ``exclude``: fields of its option
    groups left out of this command (they keep their defaults)."""
    func_hints = hints(func)
    params = [inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                annotation=typer.Context)]
    groups = commands.groups_of(func)
    for p in inspect.signature(func).parameters.values():
        group = groups.get(p.name)
        if group is None:
            params.append(p.replace(annotation=func_hints[p.name]))
            continue
        group_hints = hints(group)
        params += [inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY,
                                     default=_default(f), annotation=group_hints[f.name])
                   for f in options(group) if f.name not in exclude]

    @functools.wraps(func)
    def run(ctx: typer.Context, **kwargs: Any) -> None:
        raise typer.Exit(commands.invoke(func.__name__, kwargs, ctx.meta.get(ARGS_KEY)))

    del run.__wrapped__  # Typer reads the signature below, not the function's
    run.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params}
    app.command(cls=RecordingCommand)(run)


def _default(f: Field) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory()  # type: ignore[misc]  # a list: Typer never mutates it


# -- the fast parser's table (cli/spec.py) -----------------------------------------------

SPEC_HEADER = '''"""The command line as the fast parser (``cli/fast.py``) reads it, generated
from the Typer app by ``python -m tasplan.cli.app`` (tests/cli/test_fast.py fails when it is
out of date). Per command: its positional argument (name, type) or None, and per option string
(name, type, multiple). Types: flag, str, path, int:MIN:MAX, enum:MODULE:CLASS; a command
with anything else is left to Typer (None)."""

'''


def spec(app: typer.Typer) -> dict[str, Any]:
    """Per command, what the fast parser needs to parse it exactly as Typer does, or None
    when the command has a parameter the fast parser does not model."""
    import typer.main

    group = typer.main.get_command(app)
    return {name: _command_spec(cmd) for name, cmd in group.commands.items()}  # type: ignore[attr-defined]


def _command_spec(cmd: Any) -> dict[str, Any] | None:
    argument = None
    options: dict[str, tuple[str, str, bool]] = {}
    for p in cmd.params:
        kind = _type(p)
        plain = (p.envvar is None and p.callback is None and not p.is_eager and p.expose_value
                 and not p.secondary_opts and not getattr(p, "count", False)
                 and getattr(p, "prompt", None) is None and not getattr(p, "clamp", False))
        if kind is None or not plain:
            return None
        if type(p).__name__ == "TyperArgument":
            if argument is not None or p.nargs != -1:
                return None
            argument = (p.name, kind)  # optional too (check -f): given none, Typer decides
            continue
        multiple = bool(p.multiple)
        if p.nargs != 1 or (kind == "flag" and multiple) or p.required:
            return None
        for opt in p.opts:
            options[opt] = (p.name, kind, multiple)
    return {"argument": argument, "options": options}


def _type(p: Any) -> str | None:
    from enum import Enum
    from pathlib import Path
    from types import NoneType, UnionType

    annotation = p.type_descriptor.annotation
    if isinstance(annotation, UnionType):
        args = [a for a in get_args(annotation) if a is not NoneType]
        annotation = args[0] if len(args) == 1 else None
    if get_origin(annotation) is list:
        (annotation,) = get_args(annotation)
    if annotation is bool:
        return "flag" if getattr(p, "is_bool_flag", False) else None
    if annotation is str:
        return "str"
    if annotation is Path:
        return "path"
    if annotation is int:
        return f"int:{'' if p.min is None else p.min}:{'' if p.max is None else p.max}"
    if isinstance(annotation, type) and issubclass(annotation, Enum) and \
            getattr(p, "case_sensitive", True):
        return f"enum:{annotation.__module__}:{annotation.__qualname__}"
    return None


def spec_source(app: typer.Typer) -> str:
    import pprint

    return SPEC_HEADER + "COMMANDS = " + pprint.pformat(spec(app), width=100,
                                                        sort_dicts=False) + "\n"

