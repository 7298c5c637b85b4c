"""Every option that writes a file goes through one writer (tasplan/output_file.py): regular
files only, whole or not at all (issue 25). A FIFO, a device, a directory or a symbolic link
given as an output target is refused with one line, and left as it was."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tasplan.errors import InputError
from tasplan.output_file import check_output_file, write_output_file
from tests.hardening.test_inputs import CLUSTER, invoke, one_line_error

GPU = "nvidia.com/gpu=1"

# option -> the command line that writes the target with it
WRITERS = {
    "snapshot": lambda target: ("snapshot", "-c", CLUSTER, "-f", target, "-q"),
    "--svg": lambda target: ("capacity", "-c", CLUSTER, "--shape", "cpu=1", "--svg", target),
    "--html": lambda target: ("capacity", "-c", CLUSTER, "--shape", "cpu=1", "--html", target),
}


@pytest.fixture
def targets(tmp_path: Path) -> dict[str, tuple[str, str]]:
    """Each hostile target -> (path, the words of its error)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    real = tmp_path / "real.txt"
    real.write_text("keep")
    link = tmp_path / "link.svg"
    link.symlink_to(real)
    directory = tmp_path / "dir"
    directory.mkdir()
    return {
        "fifo": (str(fifo), "not a regular file"),
        "device": ("/dev/null", "not a regular file"),
        "symlink": (str(link), "symbolic link"),
        "directory": (str(directory), "is a directory"),
        "dot": (".", "is a directory"),
        "trailing slash": (str(tmp_path / "new") + "/", "expected a file name"),
        "empty": ("", "expected a file name"),
        "missing directory": (str(tmp_path / "nope" / "x.svg"), "cannot write"),
    }


@pytest.mark.parametrize("option", sorted(WRITERS))
def test_every_writer_refuses_what_is_not_a_regular_file(
        option: str, targets: dict[str, tuple[str, str]], tmp_path: Path) -> None:
    for name, (path, words) in targets.items():
        if option == "snapshot" and name == "empty":
            words = "name the snapshot file"  # the snapshot command's own usage error
        err = one_line_error(invoke(*WRITERS[option](path)), words)
        assert "Traceback" not in err, name
    assert stat.S_ISFIFO(os.lstat(targets["fifo"][0]).st_mode)
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)
    assert os.path.islink(targets["symlink"][0])
    assert (tmp_path / "real.txt").read_text() == "keep"
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


@pytest.mark.parametrize("option", sorted(WRITERS))
def test_every_writer_writes_a_regular_file_whole(option: str, tmp_path: Path) -> None:
    target = tmp_path / "out"
    target.write_text("old")
    target.chmod(0o600)
    result = invoke(*WRITERS[option](target))
    assert result.exit_code == 0, result.stderr
    assert target.read_text() != "old" and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_refused_svg_target_costs_no_load(tmp_path: Path) -> None:
    """The target is checked before the cluster is read: a missing cluster is not the error."""
    err = one_line_error(invoke("capacity", "-c", tmp_path / "absent", "--shape", "cpu=1",
                                "--svg", "."), "--svg .", "is a directory")
    assert "absent" not in err


def test_stdout_only_where_the_option_allows_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not write to standard output"):
        check_output_file("-", option="--svg", stdout=False)
    assert check_output_file("-") is None
    with pytest.raises(InputError, match="NUL"):
        write_output_file(str(tmp_path / "a\0b"), b"x")
    assert write_output_file(tmp_path / "new.txt", "é") == 2
    assert (tmp_path / "new.txt").read_bytes() == "é".encode()
