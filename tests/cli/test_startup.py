"""Start-up cost: every command imports what it uses and nothing else. Typer, Click and
pydantic only for what the fast parser leaves to Typer (``--help``, usage errors), Rich only
to draw tables or a status line, the kubernetes client only for ``--live``, jsonschema only
for lint's schema errors and what-if files, and a scheduler's algorithm, the pictures, CEL,
capacity, explain, lint and the what-if machinery only when the command line or the inputs
ask for them. Measured with ``python -X importtime``, whose report lists every module a
process imported; each "imported when used" case shows that the module name is right."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

CLI = ("typer", "click", "pydantic", "pydantic_core", "tasplan.cli.app", "tasplan.cli.build")
NEVER = ("kubernetes", "jsonschema", "tasplan.live")
FEATURES = (
    "tasplan.schedulers.kueue.run", "tasplan.schedulers.kueue.admission",
    "tasplan.schedulers.kueue.tas", "tasplan.schedulers.volcano.run",
    "tasplan.schedulers.volcano.allocate", "tasplan.report.picture", "tasplan.cli.pictures",
    "tasplan.capacity", "tasplan.explain", "tasplan.lint", "tasplan.whatif.ops",
    "tasplan.whatif.draft", "tasplan.dra.cel", "cel_expr_python",
)


def _imported(args: list[str], cwd: Path = SAMPLES) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tasplan", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:")}


def _found(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == n or m.startswith(n + ".") for n in names)}


CHECK = ["check", "workloads/train-rack.yaml", "--cluster", "cluster"]
CASES = {
    # command line: (what it must not import beyond CLI and NEVER, a module it does import)
    "version": (["--version"], ("rich", "tasplan.load", "tasplan.model", "tasplan.cli.fast"),
                "tasplan.version"),
    "check-json": ([*CHECK, "-o", "json"], (*FEATURES, "rich"), "tasplan.load.loader"),
    "check-table": (CHECK, FEATURES, "rich.table"),
    "explain": (["explain", "workloads/train-too-big.yaml", "-c", "cluster", "-o", "json"],
                (*FEATURES[:7], "tasplan.capacity", "tasplan.lint", "tasplan.whatif.ops",
                 "rich"), "tasplan.explain.explainer"),
    "lint": (["lint", "workloads", "-o", "json"],
             ("rich", "tasplan.plan", "tasplan.schedulers.kube", *FEATURES[:8]),
             "tasplan.lint.engine"),
    "capacity": (["capacity", "-c", "cluster", "--shape", "cpu=4", "-o", "json"],
                 (*FEATURES[:7], "tasplan.explain", "tasplan.lint", "rich"),
                 "tasplan.capacity.view"),
    "snapshot": (["snapshot", "-c", "cluster", "-f", "-"],
                 ("rich", "tasplan.plan", "tasplan.schedulers.kube", *FEATURES),
                 "tasplan.snapshot.write"),
}


# lint builds its schema registry with jsonschema's `referencing` and format checker even
# when every manifest is valid (the compiled predicates then decide alone).
ALLOWED = {"lint": ("jsonschema",)}


@pytest.mark.parametrize("case", CASES, ids=str)
def test_commands_import_only_what_they_use(case: str) -> None:
    args, unused, used = CASES[case]
    modules = _imported(args)
    assert used in modules  # the report is read right
    never = tuple(n for n in NEVER if n not in ALLOWED.get(case, ()))
    assert not _found(modules, (*CLI, *never, *unused))


WHEN_USED = {
    # command line (run in samples/): the module it must import
    "help": (["check", "--help"], "typer"),
    "usage-error": (["check", "workloads/train-rack.yaml", "--width", "3"], "typer"),
    "html": ([*CHECK, "--html", "{tmp}/p.html"], "tasplan.report.picture.plan_page"),
    "kueue": (["check", "kueue/", "-c", "cluster", "-o", "json"], "tasplan.schedulers.kueue.run"),
    "what-if": ([*CHECK, "--drain", "rack=rack-a1", "-o", "json"], "tasplan.whatif.ops"),
    "dra": (["check", "dra/workloads/train-fabric.yaml", "-c", "dra/cluster", "-o", "json"],
            "tasplan.dra.cel"),
    "table": (CHECK, "rich.table"),
}


@pytest.mark.parametrize("case", WHEN_USED, ids=str)
def test_imported_when_used(case: str, tmp_path: Path) -> None:
    args, module = WHEN_USED[case]
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tasplan",
                           *[a.format(tmp=tmp_path) for a in args]],
                          capture_output=True, text=True, cwd=SAMPLES, timeout=120)
    modules = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
               if line.startswith("import time:")}
    assert module in modules, proc.stderr[-2000:]


def test_version_is_typers() -> None:
    """``tasplan --version`` (answered before anything else is imported) prints what the
    Typer app's eager option prints."""
    from typer.testing import CliRunner

    from tasplan.cli.app import app

    fast = subprocess.run([sys.executable, "-m", "tasplan", "--version"],
                          capture_output=True, text=True, timeout=60)
    assert fast.returncode == 0
    assert fast.stdout == CliRunner().invoke(app, ["--version"]).stdout


def test_pdb_allowance_values_are_the_preemptions() -> None:
    """The CLI writes the values out (importing preemption.budgets loads the model)."""
    from tasplan.cli.definition import PdbAllowance
    from tasplan.preemption.budgets import COMPUTED, STATUS

    assert {m.value for m in PdbAllowance} == {STATUS, COMPUTED}


def test_facade_names_resolve() -> None:
    """The facade imports its names when first used; every one of ``__all__`` resolves,
    and ``tasplan.plan`` is the function even after the subpackage is imported."""
    code = ("import tasplan, tasplan.plan.result, sys\n"
            "assert 'tasplan.load.loader' not in sys.modules\n"
            "assert callable(tasplan.plan), tasplan.plan\n"
            "for name in tasplan.__all__: getattr(tasplan, name)\n"
            "from tasplan import plan, load_inputs\n"
            "assert plan is tasplan.plan\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr


def test_commands_keep_what_they_built_for_os_exit() -> None:
    """With teardown skipped (a real process), ``check`` leaves its snapshot referenced, so
    returning from the command frees nothing before ``os._exit``."""
    code = (
        "import io, sys\n"
        "from pathlib import Path\n"
        "from tasplan.cli import teardown\n"
        "from tasplan.cli.check import run_check\n"
        "from tasplan.model.snapshot import ClusterSnapshot\n"
        "teardown.enable()\n"
        "sys.stdout = io.StringIO()\n"
        "run_check([Path('workloads/train-rack.yaml')], [Path('cluster')], 'json')\n"
        "sys.stdout = sys.__stdout__\n"
        "print(sum(isinstance(o, ClusterSnapshot) for o in teardown._kept))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=SAMPLES, timeout=120)
    assert proc.stdout.strip() == "1", proc.stderr[-2000:]
