"""The console script's table of the methods ``dataclasses`` compiles
(``tasplan.cli.dataclass_code``): with the table warm, cold, damaged or not written, every
class gets the same methods and every command the same output; the file is what the module
says it is (magic number, merged, bounded, never under ``PYTHONDONTWRITEBYTECODE``)."""

from __future__ import annotations

import dataclasses
import marshal
import os
import subprocess
import sys
from importlib.util import MAGIC_NUMBER
from pathlib import Path

import pytest

from tasplan.cli import dataclass_code

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

# Imports every tasplan module (the CLI's and Typer's, Rich's too) with or without the table
# at sys.argv[1] ("" = the plain exec), writes {module.class.method: (code, annotations,
# defaults)} of every dataclass-generated method to sys.argv[2] and the table back to
# sys.argv[1].
_METHODS = """
import dataclasses, importlib, marshal, pkgutil, sys
from pathlib import Path
from tasplan.cli import dataclass_code
if sys.argv[1]:
    dataclass_code.install(Path(sys.argv[1]))
import tasplan
for info in pkgutil.walk_packages(tasplan.__path__, "tasplan."):
    if info.name != "tasplan.__main__":
        importlib.import_module(info.name)
import tasplan.cli.app
codes = {}
for module in list(sys.modules.values()):
    for cls in list(vars(module).values()) if module else ():
        if isinstance(cls, type) and dataclasses.is_dataclass(cls):
            for name, fn in vars(cls).items():
                code = getattr(fn, "__code__", None)
                if code is not None and code.co_filename == "<string>":
                    codes[f"{cls.__module__}.{cls.__qualname__}.{name}"] = (
                        code, code.co_qualname, repr(fn.__annotations__),
                        repr(fn.__defaults__), repr(fn.__kwdefaults__))
Path(sys.argv[2]).write_bytes(marshal.dumps(codes))
if sys.argv[1]:
    dataclass_code.write(Path(sys.argv[1]), dataclass_code._table)
print(dataclass_code._compiled, len(dataclass_code._table))
"""


def _methods(tmp_path: Path, table: Path | None, out: str) -> tuple[dict, str]:
    proc = subprocess.run([sys.executable, "-c", _METHODS, str(table or ""),
                           str(tmp_path / out)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return marshal.loads((tmp_path / out).read_bytes()), proc.stdout.split()


def test_every_class_gets_the_methods_the_plain_exec_makes(tmp_path: Path) -> None:
    """Differential: every dataclass of every tasplan module (and of the libraries it
    imports) has, method by method, equal code with the plain ``exec``, with the table
    cold (every text compiled by the cached exec) and with it warm (every text from the
    file: nothing compiled)."""
    table = tmp_path / "table.marshal"
    plain, _ = _methods(tmp_path, None, "plain")
    assert len(plain) > 500  # the walk found the model, the planner, Rich's classes
    cold, (compiled, size) = _methods(tmp_path, table, "cold")
    assert int(compiled) == int(size) > 500
    warm, (compiled, size) = _methods(tmp_path, table, "warm")
    assert compiled == "0" and int(size) > 500
    assert plain == cold == warm


def test_cold_run_table_is_written_by_save(tmp_path: Path) -> None:
    """``install`` + ``save`` as the console script does: the file holds exactly the texts
    compiled, keyed by text, and a second process compiles nothing."""
    table = tmp_path / "t.marshal"
    code = ("import sys; from pathlib import Path\n"
            "from tasplan.cli import dataclass_code as d\n"
            "d.install(Path(sys.argv[1]))\n"
            "import tasplan.plan.result, tasplan.model.snapshot\n"
            "d.save(); print(d._compiled)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run([sys.executable, "-c", code, str(table)], capture_output=True,
                           text=True, timeout=120, env=env)
    assert first.returncode == 0, first.stderr
    assert int(first.stdout) > 20
    data = table.read_bytes()
    assert data.startswith(MAGIC_NUMBER)
    assert len(dataclass_code.read(table)) == int(first.stdout)
    assert all("def __create_fn__" in text for text in dataclass_code.read(table))
    second = subprocess.run([sys.executable, "-c", code, str(table)], capture_output=True,
                            text=True, timeout=120, env=env)
    assert second.stdout.strip() == "0"
    assert table.read_bytes() == data  # nothing new: not rewritten
    # under PYTHONDONTWRITEBYTECODE nothing is written
    table.unlink()
    quiet = subprocess.run([sys.executable, "-c", code, str(table)], capture_output=True,
                           text=True, timeout=120, env={**env, "PYTHONDONTWRITEBYTECODE": "1"})
    assert quiet.returncode == 0 and not table.exists()


COMMANDS = [
    ["check", "workloads/", "--cluster", "cluster"],
    ["check", "workloads/", "--cluster", "cluster", "-o", "json"],
    ["explain", "workloads/train-too-big.yaml", "-c", "cluster", "-o", "json"],
    ["lint", "workloads", "-o", "json"],
    ["check", "dra/workloads/train-fabric.yaml", "-c", "dra/cluster", "-o", "json"],
]


def _run(args: list[str], prefix: Path, write: bool = True) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if not write:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run([sys.executable, "-X", f"pycache_prefix={prefix}", "-m", "tasplan",
                           *args], capture_output=True, text=True, cwd=SAMPLES, env=env,
                          timeout=300)
    return proc.returncode, proc.stdout, proc.stderr


def _table_file(prefix: Path) -> Path:
    found = list(prefix.rglob("dataclass-code.*.marshal"))
    assert len(found) == 1, found
    return found[0]


@pytest.mark.slow
def test_commands_print_the_same_with_the_table_cold_warm_damaged_or_unwritten(
        tmp_path: Path) -> None:
    """End to end, through the console script: each command prints byte-identical output
    (and exit code) without writing the table, with it cold (this run writes it, under
    ``pycache_prefix`` as Python's bytecode), warm, truncated, of another interpreter
    (magic number) and replaced by something that is not a table."""
    prefix = tmp_path / "pyc"
    for args in COMMANDS:
        expected = _run(args, tmp_path / "unwritten", write=False)
        assert expected[0] in (0, 1), expected[2][-2000:]
        assert _run(args, prefix) == expected  # cold for the first command
        table = _table_file(prefix)
        assert dataclass_code.read(table)
        assert _run(args, prefix) == expected  # warm
        good = table.read_bytes()
        for bad in (good[: len(good) // 2], b"\0\0\r\n" + good[4:],
                    MAGIC_NUMBER + marshal.dumps({"x": 1}), MAGIC_NUMBER + marshal.dumps([1])):
            table.write_bytes(bad)
            assert _run(args, prefix) == expected
        table.write_bytes(good)
    assert not list((tmp_path / "unwritten").rglob("dataclass-code.*"))


def test_read_refuses_what_is_not_a_table(tmp_path: Path) -> None:
    path = tmp_path / "t"
    assert dataclass_code.read(path) == {}  # missing
    code = compile("x = 1", "<string>", "exec")
    for data in (b"", MAGIC_NUMBER, b"\x00" * 4 + marshal.dumps({"x = 1": code}),
                 MAGIC_NUMBER + b"\xff\xff", MAGIC_NUMBER + marshal.dumps({1: code}),
                 MAGIC_NUMBER + marshal.dumps({"x = 1": "x"}),
                 MAGIC_NUMBER + b" " * (dataclass_code._MAX_BYTES + 1)):
        path.write_bytes(data)
        assert dataclass_code.read(path) == {}, data[:40]
    path.write_bytes(MAGIC_NUMBER + marshal.dumps({"x = 1": code}))
    assert dataclass_code.read(path) == {"x = 1": code}


def test_write_merges_and_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "sub" / "t"
    a, b = (compile(t, "<string>", "exec") for t in ("a = 1", "b = 2"))
    dataclass_code.write(path, {"a = 1": a})
    dataclass_code.write(path, {"b = 2": b})  # another run's texts are kept
    assert dataclass_code.read(path) == {"a = 1": a, "b = 2": b}
    monkeypatch.setattr(dataclass_code, "_MAX_ENTRIES", 2)
    c = compile("c = 3", "<string>", "exec")
    dataclass_code.write(path, {"a = 1": a, "c = 3": c})  # over the bound: this run's alone
    assert dataclass_code.read(path) == {"a = 1": a, "c = 3": c}
    dataclass_code.write(path, {k: c for k in ("x", "y", "z")})  # too many by itself
    assert dataclass_code.read(path) == {"a = 1": a, "c = 3": c}
    assert [p.name for p in path.parent.iterdir()] == ["t"]  # no temporary file left


def test_write_to_a_read_only_place_is_silent(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    dataclass_code.write(blocker / "t", {"a = 1": compile("a = 1", "<string>", "exec")})
    assert blocker.read_text() == ""


def test_dataclasses_compiles_through_the_cached_exec(monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is used only because ``dataclasses`` calls ``exec`` by its module's global
    name: a Python that stops doing so makes this fail (the table would sit unused)."""
    monkeypatch.setattr(dataclasses, "exec", dataclass_code.cached_exec, raising=False)
    monkeypatch.setattr(dataclass_code, "_table", {})
    monkeypatch.setattr(dataclass_code, "_compiled", 0)

    @dataclasses.dataclass(frozen=True)
    class Point:
        x: int
        y: int = 2

    assert dataclass_code._compiled >= 4  # __init__, __repr__, __eq__, __hash__, ...
    assert any("def __init__(self,x:_type_x,y:_type_y=_dflt_y)" in t
               for t in dataclass_code._table)
    assert Point(1) == Point(1, 2) and repr(Point(1)).endswith(".Point(x=1, y=2)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        Point(1).x = 3  # type: ignore[misc]


def test_the_cache_path_follows_python_bytecode(monkeypatch: pytest.MonkeyPatch) -> None:
    package = Path(dataclass_code.__file__).resolve().parents[1]
    tag = sys.implementation.cache_tag
    monkeypatch.setattr(sys, "pycache_prefix", None)
    assert dataclass_code.cache_path() == package / "__pycache__" / f"dataclass-code.{tag}.marshal"
    monkeypatch.setattr(sys, "pycache_prefix", "/tmp/pfx")
    assert dataclass_code.cache_path() == Path("/tmp/pfx", *package.parts[1:],
                                               f"dataclass-code.{tag}.marshal")
