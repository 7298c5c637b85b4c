"""The fast parser (``tasplan/cli/fast.py``) reads a command line exactly as Typer does,
or leaves it to Typer: on hand-picked and generated command lines, whatever it accepts,
Typer accepts with the same values handed to the command; and the table it reads
(``tasplan/cli/spec.py``) is the one the Typer app makes today."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import given, settings
from hypothesis import strategies as st

from tasplan.cli import commands, fast
from tasplan.cli.app import app
from tasplan.cli.build import spec_source
from tasplan.cli.spec import COMMANDS

SPEC = Path(fast.__file__).with_name("spec.py")
CLICK = typer.main.get_command(app)


def test_spec_is_current() -> None:
    assert SPEC.read_text() == spec_source(app), (
        "tasplan/cli/spec.py is out of date: run `python -m tasplan.cli.app`")


class Recorded(Exception):
    """Raised by the stand-in commands: (name, every argument the command got)."""


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> None:
    for func in commands.COMMANDS:
        signature = inspect.signature(func)

        def stand_in(*args: Any, __name: str = func.__name__, __sig: Any = signature,
                     **kwargs: Any) -> int:
            bound = __sig.bind(*args, **kwargs)
            bound.apply_defaults()
            raise Recorded(__name, dict(bound.arguments))

        stand_in.__signature__ = signature  # type: ignore[attr-defined]
        stand_in.__annotations__ = func.__annotations__
        monkeypatch.setattr(commands, func.__name__, stand_in)


def by_typer(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    """What Typer hands the command, or None when it refuses the command line."""
    try:
        CLICK.main(args=list(argv), prog_name="tasplan", standalone_mode=False)
    except Recorded as done:
        return done.args
    except Exception:  # usage errors, --help's exit, ...
        return None
    return None


def by_fast(argv: list[str]) -> tuple[str, dict[str, Any]] | None:
    parsed = fast.parse(argv)
    if parsed is None:
        return None
    try:
        commands.invoke(parsed[0], parsed[1], fast.command_args(argv))
    except Recorded as done:
        return done.args
    raise AssertionError("the command was not called")


COMMON = [
    ["check", "workloads/train-rack.yaml", "--cluster", "cluster"],
    ["check", "w.yaml", "-c", "cluster", "-o", "json", "--all"],
    ["check", "w.yaml", "-c", "a", "-c", "b", "--output=yaml", "--width", "80",
     "--scheduler", "kueue", "--no-preempt", "--kube-version", "1.36"],
    ["check", "w.yaml", "-c", "c", "--drain", "rack=r1", "--cordon", "n1",
     "--add-nodes", "4", "--like", "n2", "--in", "rack=r9", "--label", "a=b", "--drain", "x"],
    ["check", "w.yaml", "-c", "c", "--gang", "8", "--topology-key", "rack", "--html", "o.html"],
    ["explain", "unschedulable", "-c", "cluster", "-o", "wide"],
    # -o is kubectl's free-form value (a format name or jsonpath=TEMPLATE; run_* judge it)
    ["check", "w.yaml", "-f", "x.yaml", "-o", "jsonpath={.groups[*].name}", "-n", "ml"],
    ["check", "w.yaml", "-o", "JSON"], ["explain", "big", "-n", "ml", "-f", "w.yaml"],
    ["explain", "ns/name", "w.yaml", "-c", "cluster", "--evict", "priority<10"],
    ["lint", "a.yaml", "dir", "--strict", "-o", "sarif", "--summary", "-n", "team"],
    ["lint", "-"],
    ["lint", "x.yaml", "--cluster", "c", "--kube-version", "1.38"],
    ["snapshot", "-c", "cluster", "-f", "out.json"],
    ["snapshot", "--live", "--context", "prod", "-n", "ns", "-q", "-o", "s.json.gz",
     "--request-timeout", "30s"],
    ["capacity", "-c", "cluster", "--shape", "cpu=4", "--depth", "2", "-o", "json",
     "--gang", "3", "--svg", "m.svg", "--tolerate", "gpu:NoSchedule", "--for", "w.yaml"],
    ["capacity", "-c", "cluster", "--remove", "n1", "--levels", "zone,rack"],
    ["version"],
    ["--version"],
]

# Typer's own business (or a usage error): the fast parser must leave each to it.
TYPERS = [
    [], ["--help"], ["check", "--help"], ["check", "-h", "w.yaml"], ["check"],
    ["check", "w.yaml", "--", "x"], ["check", "w.yaml", "-ojson"], ["check", "w.yaml", "-qc", "x"],
    ["check", "w.yaml", "--width", "19"], ["check", "w.yaml", "--width", "+30"],
    ["check", "w.yaml", "--gang", "0"], ["lint", "a.yaml", "-o", "SARIF"],
    # kubectl's forms: -X=VALUE (KubectlGroup splits it), -f alone (no positional argument)
    ["check", "w.yaml", "-o=json"], ["check", "-f", "w.yaml"], ["explain", "-n=ml", "x"],
    ["check", "w.yaml", "--all=true"], ["check", "w.yaml", "--cluster"],
    ["check", "w.yaml", "--cluster", "--all"], ["check", "w.yaml", "--bogus"],
    ["capacity", "-c", "c", "--set", "a/b.minCount=2"], ["snapshot", "extra"],
    ["version", "x"], ["--version", "check"], ["nope"], ["--install-completion"],
]


@pytest.mark.usefixtures("record")
@pytest.mark.parametrize("argv", COMMON, ids=" ".join)
def test_common_command_lines_are_fast_and_equal(argv: list[str]) -> None:
    fast_result = by_fast(argv)
    assert fast_result is not None, "the fast parser should take this command line"
    if argv == ["--version"]:  # Typer prints it from the root's eager option
        assert fast_result == ("version", {})
        return
    assert fast_result == by_typer(argv)


@pytest.mark.usefixtures("record")
@pytest.mark.parametrize("argv", TYPERS, ids=" ".join)
def test_left_to_typer(argv: list[str]) -> None:
    assert fast.parse(argv) is None


def test_completion_is_left_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_TASPLAN_COMPLETE", "bash_source")
    assert fast.parse(["check", "w.yaml"]) is None


VALUES = ["a", "w.yaml", "-", "", "-x", "0", "1", "2", "19", "20", "80", "007", "+3", " 5",
          "1_0", "-1", "1e3", "0x10", "json", "JSON", "table", "wide", "yaml", "text",
          "sarif", "junit", "github", "auto", "kueue", "ns/name", "=", "a=b", "é", "--",
          "-h", "--help", "-c", "--all", "--cluster=c"]


@st.composite
def command_lines(draw: st.DrawFn) -> list[str]:
    name = draw(st.sampled_from([n for n, s in COMMANDS.items() if s is not None]))
    flags = sorted(COMMANDS[name]["options"])
    argv = [name]
    for _ in range(draw(st.integers(0, 8))):
        kind = draw(st.integers(0, 3))
        if kind == 0:
            argv.append(draw(st.sampled_from(VALUES)))
        elif kind == 1 and flags:
            argv.append(draw(st.sampled_from(flags)))
        elif kind == 2 and flags:
            argv += [draw(st.sampled_from(flags)), draw(st.sampled_from(VALUES))]
        elif flags:
            argv.append(draw(st.sampled_from(flags)) + "=" + draw(st.sampled_from(VALUES)))
    return argv


@pytest.mark.slow
@pytest.mark.usefixtures("record")
@settings(max_examples=1500, deadline=None)
@given(command_lines())
def test_generated_command_lines(argv: list[str]) -> None:
    fast_result = by_fast(argv)
    if fast_result is not None:
        assert fast_result == by_typer(argv)
