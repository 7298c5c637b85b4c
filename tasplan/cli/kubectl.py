"""kubectl's command-line habits that Click does not share: ``-o=json``, ``-n=ml`` and
``-f=train.yaml`` (pflag reads ``-X=VALUE`` as the value ``VALUE``; Click would read
``=VALUE``), and help that never cuts a word (``help_format``)."""

from __future__ import annotations

from typing import Any

from typer.core import TyperGroup

from tasplan.cli.help_format import rich_help, use_plain_help


class KubectlGroup(TyperGroup):
    """The command group: each command's arguments are read as kubectl reads them."""

    def make_context(self, info_name: Any, args: list[str], parent: Any = None,
                     **extra: Any) -> Any:
        if not rich_help():
            use_plain_help(self)
        return super().make_context(info_name, args, parent, **extra)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """Plain help lists each command with its whole first sentence (Click's list ends
        them with "..." at the terminal's width)."""
        if self.rich_markup_mode is not None:
            super().format_commands(ctx, formatter)
            return
        rows = [(name, command.get_short_help_str(limit=1 << 16))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[Any, Any, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            rest = split_short_values(rest, value_options(command))
            if self.rich_markup_mode is None:
                use_plain_help(command)
        return name, command, rest


def value_options(command: Any) -> set[str]:
    """The option names of ``command`` that take a value."""
    return {opt for p in command.params
            if getattr(p, "param_type_name", "") == "option" and not p.is_flag
            and not getattr(p, "count", False)
            for opt in (*p.opts, *p.secondary_opts)}


def split_short_values(args: list[str], options: set[str]) -> list[str]:
    """``-X=VALUE`` -> ``-X VALUE`` for the short options that take a value. A token that
    is another option's value is left alone, and so is everything after ``--``."""
    out: list[str] = []
    expects_value = False
    for i, arg in enumerate(args):
        if arg == "--" and not expects_value:
            out.extend(args[i:])
            break
        if expects_value:
            out.append(arg)
            expects_value = False
            continue
        if len(arg) > 2 and arg[0] == "-" and arg[1] != "-" and arg[2] == "=" \
                and arg[:2] in options:
            out += [arg[:2], arg[3:]]
            continue
        out.append(arg)
        expects_value = arg in options  # ``-o json``, ``--output json``: json is a value
    return out
