"""Start-up cost: every command imports what it uses and nothing else. Typer, Click and
pydantic only for what the fast parser leaves to Typer (``--help``, usage errors), Rich only
to draw tables or a status line, the kubernetes client only for ``--live``, jsonschema and
referencing only where lint cannot name a schema violation itself (no bundled schema),
msgspec only for JSON inputs, PyYAML only for a file libyaml reads (rapidyaml reads the
samples) or ``-o yaml``, the Kueue, KAI and Volcano decoders and records only for inputs that
hold their kinds, a scheduler's algorithm, the pictures, CEL, capacity, explain, lint and the
what-if machinery only when the command line or the inputs ask for them. Measured with ``python -X
importtime``, whose report lists every module a process imported: per command a deny-list
(modules by what they are for) and a budget (how many modules in all, a little above what it
imports today, so an eager import of anything sizeable fails too). Each "imported when used"
case shows that a module name is right, and ``test_an_eager_import_fails`` that the check
sees an import added back."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "samples"

# Modules by what they are for.
TYPER = ("typer", "click", "pydantic", "pydantic_core", "tasplan.cli.app", "tasplan.cli.build")
RICH = ("rich",)
LIVE = ("kubernetes", "urllib3", "tasplan.live")
SCHEMA = ("jsonschema", "referencing", "jsonschema_specifications", "rpds")
CEL = ("tasplan.dra.cel", "cel_expr_python")
TYPED = ("msgspec", "tasplan.load.typed")  # the JSON cluster reader
KUEUE = ("tasplan.schedulers.kueue.run", "tasplan.schedulers.kueue.admission",
         "tasplan.schedulers.kueue.tas", "tasplan.schedulers.kueue.workload",
         "tasplan.schedulers.kueue.request", "tasplan.schedulers.kueue.intent")
KAI = ("tasplan.schedulers.kai.run", "tasplan.schedulers.kai.allocate",
       "tasplan.schedulers.kai.tree", "tasplan.schedulers.kai.fit",
       "tasplan.schedulers.kai.jobs", "tasplan.schedulers.kai.grouper",
       "tasplan.schedulers.kai.intent", "tasplan.schedulers.kai.predicates")
VOLCANO = ("tasplan.schedulers.volcano.run", "tasplan.schedulers.volcano.allocate",
           "tasplan.schedulers.volcano.intent")
SCHEDULERS = (*KUEUE, *KAI, *VOLCANO)
# The decoders and records of the peer schedulers' kinds (load/kinds.py names the kinds).
PEER_KINDS = ("tasplan.load.kueue", "tasplan.load.kueue_workloads", "tasplan.model.kueue",
              "tasplan.load.kai", "tasplan.model.kai", "tasplan.load.volcano",
              "tasplan.model.volcano", "tasplan.load.dra")
YAML = ("yaml", "tasplan.load.kube_yaml")  # PyYAML: libyaml's reading and -o yaml
PICTURES = ("tasplan.report.picture", "tasplan.cli.pictures")
COMPARE = ("tasplan.schedulers.compare", "tasplan.report.compare")
WHATIF = ("tasplan.whatif.ops", "tasplan.whatif.draft")
LINT_FORMATS = ("tasplan.lint.formats.text", "tasplan.lint.formats.junit",
                "tasplan.lint.formats.sarif", "tasplan.lint.formats.github", "xml")
COMMANDS = ("tasplan.capacity", "tasplan.explain", "tasplan.lint")
PLANNING = ("tasplan.plan", "tasplan.schedulers.kube", "tasplan.schedulers.planner",
            "tasplan.framework", "tasplan.plugins", "tasplan.preemption")
# Every check-like command on the samples' kube-scheduler gangs.
NOT_FOR_A_GANG = (*TYPER, *LIVE, *SCHEMA, *CEL, *TYPED, *SCHEDULERS, *PICTURES, *COMPARE,
                  *PEER_KINDS, *YAML, "tasplan.snapshot.write")

CHECK = ["check", "workloads/train-rack.yaml", "--cluster", "cluster"]
CASES = {
    # name: (command line run in samples/, what it must not import, a module it imports,
    #        the most modules it may import in all)
    "version": (["--version"], (*TYPER, *RICH, "tasplan.load", "tasplan.model",
                                "tasplan.cli.fast"), "tasplan.version", 85),
    "check-json": ([*CHECK, "-o", "json"],
                   (*NOT_FOR_A_GANG, *RICH, *WHATIF, *COMMANDS), "tasplan.load.loader", 300),
    "check-table": (CHECK, (*NOT_FOR_A_GANG, *WHATIF, *COMMANDS), "rich.table", 360),
    "check-samples": (["check", "workloads/", "--cluster", "cluster"],
                      (*NOT_FOR_A_GANG, *WHATIF, *COMMANDS), "rich.table", 360),
    "what-if": ([*CHECK, "--drain", "rack=rack-a1", "-o", "json"],
                (*NOT_FOR_A_GANG, *RICH, *COMMANDS), "tasplan.whatif.ops", 310),
    "explain": (["explain", "workloads/train-too-big.yaml", "-c", "cluster", "-o", "json"],
                (*NOT_FOR_A_GANG, *RICH, "tasplan.whatif.ops", "tasplan.capacity",
                 "tasplan.lint"), "tasplan.explain.explainer", 320),
    # lint's Kueue rules read the pod-set annotations of kueue.request
    "lint": (["lint", "workloads", "-o", "json"],
             (*TYPER, *LIVE, *SCHEMA, *CEL, *TYPED, *KAI, *VOLCANO, *PICTURES, *COMPARE,
              *(m for m in KUEUE if m != "tasplan.schedulers.kueue.request"),
              *LINT_FORMATS[:4], *RICH, *PLANNING, *PEER_KINDS, "tasplan.model.dra",
              "tasplan.capacity", "tasplan.explain", "tasplan.whatif"), "tasplan.lint.engine",
             275),
    # an invalid object: lint names its violations itself (schema_check.Namer)
    "lint-error": (["lint", "{tmp}/bad.yaml", "-o", "json"],
                   (*TYPER, *LIVE, *SCHEMA, "attrs", *CEL, *TYPED, *RICH, *PLANNING,
                    *PEER_KINDS), "tasplan.lint.schema_check", 275),
    "lint-text": (["lint", "workloads"], (*TYPER, *SCHEMA, *CEL, *LINT_FORMATS[1:], *RICH,
                                          *PLANNING, *PEER_KINDS, "tasplan.model.dra"),
                  "tasplan.lint.formats.text", 275),
    "capacity": (["capacity", "-c", "cluster", "--shape", "cpu=4", "-o", "json"],
                 (*TYPER, *LIVE, *SCHEMA, *CEL, *TYPED, *SCHEDULERS, *PICTURES, *COMPARE,
                  *RICH, *PEER_KINDS, *YAML, "tasplan.explain", "tasplan.lint"),
                 "tasplan.capacity.view", 275),
    "snapshot": (["snapshot", "-c", "cluster", "-f", "-"],
                 (*TYPER, *LIVE, *SCHEMA, *CEL, *TYPED, *RICH, *PLANNING, *SCHEDULERS,
                  *PICTURES, *COMPARE, *COMMANDS, *PEER_KINDS, *YAML), "tasplan.snapshot.write",
                 230),
    "help": (["--help"], (*LIVE, *SCHEMA, *CEL, *TYPED, *PLANNING, *SCHEDULERS, *PICTURES,
                          *COMPARE, *COMMANDS, "tasplan.load.loader"), "typer", 195),
    "check-help": (["check", "--help"], (*LIVE, *SCHEMA, *CEL, *TYPED, *PLANNING,
                                         *SCHEDULERS, *PICTURES, *COMPARE, *COMMANDS,
                                         "tasplan.load.loader"), "typer", 310),
}


def _imported(args: list[str], cwd: Path = SAMPLES) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tasplan", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=120)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return _modules(proc.stderr)


def _modules(report: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip() for line in report.splitlines()
            if line.startswith("import time:") and not line.endswith("| imported package")}


def _found(modules: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in modules if any(m == n or m.startswith(n + ".") for n in names)}


def _problems(case: str, modules: set[str]) -> list[str]:
    """What the command imported that it must not, and whether it went over budget."""
    _, unused, used, budget = CASES[case]
    assert used in modules  # the report is read right
    problems = sorted(_found(modules, unused))
    if len(modules) > budget:
        problems.append(f"{len(modules)} modules, budget {budget}")
    return problems


BAD = ("apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\nmetadata: {name: Bad_Name}\n"
       "spec: {schedulingPolicy: {gang: {minCount: 0}}, unknown: 1}\n")


@pytest.mark.parametrize("case", CASES, ids=str)
def test_commands_import_only_what_they_use(case: str, tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(BAD)
    args = [a.format(tmp=tmp_path) for a in CASES[case][0]]
    assert _problems(case, _imported(args)) == []


@pytest.mark.parametrize(("eager", "denied"), [
    ("jsonschema", ("jsonschema", "referencing")),
    # the loader importing a peer scheduler's decoder (and so its records) for every run
    ("tasplan.load.kueue", ("tasplan.load.kueue", "tasplan.model.kueue")),
    ("tasplan.load.volcano", ("tasplan.load.volcano", "tasplan.model.volcano")),
    # libyaml's loaders imported before rapidyaml has tried the file
    ("tasplan.load.kube_yaml", ("tasplan.load.kube_yaml", "yaml")),
])
def test_an_eager_import_fails(eager: str, denied: tuple[str, ...]) -> None:
    """The check above sees a module imported that the command does not use: the same
    command line, run after importing ``eager`` (as an eager import in any module of the
    run would), fails on the deny-list (and, for jsonschema, the budget)."""
    code = (f"import sys, runpy, {eager}\n"
            "sys.argv = ['tasplan', *sys.argv[1:]]\n"
            "runpy.run_module('tasplan', run_name='__main__')\n")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code, *CHECK, "-o",
                           "json"], capture_output=True, text=True, cwd=SAMPLES, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    problems = _problems("check-json", _modules(proc.stderr))
    assert set(denied) <= set(problems)
    if eager == "jsonschema":
        assert problems[-1].endswith("budget 300")


WHEN_USED = {
    # command line (run in samples/): the module it must import
    "help": (["check", "--help"], "typer"),
    "usage-error": (["check", "workloads/train-rack.yaml", "--width", "3"], "typer"),
    "html": ([*CHECK, "--html", "{tmp}/p.html"], "tasplan.report.picture.plan_page"),
    "kueue": (["check", "kueue/", "-c", "cluster", "-o", "json"], "tasplan.schedulers.kueue.run"),
    "kai": (["check", "kai/", "-c", "cluster", "-o", "json"], "tasplan.schedulers.kai.run"),
    "volcano": (["check", "volcano/train-vcjob.yaml", "volcano/hypernodes.yaml", "-c",
                 "cluster", "-o", "json"], "tasplan.schedulers.volcano.run"),
    "compare": ([*CHECK, "--compare"], "tasplan.report.compare"),
    "what-if": ([*CHECK, "--drain", "rack=rack-a1", "-o", "json"], "tasplan.whatif.ops"),
    "dra": (["check", "dra/workloads/train-fabric.yaml", "-c", "dra/cluster", "-o", "json"],
            "tasplan.dra.cel"),
    "table": (CHECK, "rich.table"),
    "json-cluster": (["check", "workloads/train-rack.yaml", "-c", "{tmp}/cluster.json", "-o",
                      "json"], "tasplan.load.typed"),
    "lint-dra": (["lint", "dra/cluster/deviceclasses.yaml", "-o", "json"], "tasplan.dra.cel"),
    "lint-junit": (["lint", "workloads", "-o", "junit"], "tasplan.lint.formats.junit"),
    "binary-snapshot": (["snapshot", "-c", "cluster", "-f", "{tmp}/c.tsnap"],
                        "tasplan.snapshot.binary"),
    "libyaml": (["check", "{tmp}/anchors.yaml", "-c", "cluster", "-o", "json"],
                "tasplan.load.kube_yaml"),
    "yaml-output": ([*CHECK, "-o", "yaml"], "yaml"),
    "kueue-kinds": (["check", "kueue/", "-c", "cluster", "-o", "json"], "tasplan.load.kueue"),
    "kai-kinds": (["check", "kai/", "-c", "cluster", "-o", "json"], "tasplan.model.kai"),
    "volcano-kinds": (["check", "volcano/train-vcjob.yaml", "-c", "cluster", "-o", "json"],
                      "tasplan.load.volcano"),
    "dra-kinds": (["check", "dra/workloads/train-fabric.yaml", "-c", "dra/cluster", "-o",
                   "json"], "tasplan.load.dra"),
}


@pytest.mark.parametrize("case", WHEN_USED, ids=str)
def test_imported_when_used(case: str, tmp_path: Path) -> None:
    args, module = WHEN_USED[case]
    (tmp_path / "bad.yaml").write_text(BAD)
    # an anchor: rapidyaml's path refuses it, libyaml reads the file
    (tmp_path / "anchors.yaml").write_text((SAMPLES / "workloads" / "train-rack.yaml")
                                           .read_text().replace("metadata:", "metadata: &m", 1))
    if "{tmp}/cluster.json" in args:  # the samples' cluster as one JSON List
        made = subprocess.run([sys.executable, "-m", "tasplan", "snapshot", "-c", "cluster",
                               "--as-list", "-f", str(tmp_path / "cluster.json")],
                              cwd=SAMPLES, capture_output=True, timeout=120)
        assert made.returncode == 0, made.stderr
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "tasplan",
                           *[a.format(tmp=tmp_path) for a in args]],
                          capture_output=True, text=True, cwd=SAMPLES, timeout=120)
    assert module in _modules(proc.stderr), proc.stderr[-2000:]


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
