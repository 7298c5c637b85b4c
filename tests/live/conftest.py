"""Fixtures: the sample cluster served by the loopback API server, and a kubeconfig for it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tasplan.load.documents import expand_paths, read_documents
from tests.live.apiserver import Cluster, serve, write_kubeconfig

REPO = Path(__file__).resolve().parents[2]
SAMPLE_CLUSTER = REPO / "samples" / "cluster"
SAMPLE_WORKLOADS = REPO / "samples" / "workloads"


def sample_objects() -> list[dict]:
    return [d.obj for f in expand_paths(SAMPLE_CLUSTER) for d in read_documents(f, workload=False)]


@pytest.fixture
def cluster() -> Cluster:
    c = Cluster()
    c.add(*sample_objects())
    return c


@pytest.fixture
def server(cluster: Cluster) -> Iterator[str]:
    with serve(cluster) as url:
        yield url


@pytest.fixture
def kubeconfig(tmp_path: Path, server: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = write_kubeconfig(tmp_path / "config", server)
    monkeypatch.setenv("KUBECONFIG", str(path))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    return path
