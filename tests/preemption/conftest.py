"""Every preemption test runs twice: with the reprieve that tries only the units on the
placed pods' nodes (``evaluator.FAST``, the default) and decides a node's check by counts
where they decide it (``evaluator.COUNTED``), and with upstream's loop over every candidate
checking every placed pod in turn, so the upstream tables here guard both."""

from __future__ import annotations

import pytest

from tasplan.preemption import evaluator


@pytest.fixture(autouse=True, params=[True, False], ids=["fast", "plain"])
def reprieve_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.setattr(evaluator, "FAST", request.param)
    monkeypatch.setattr(evaluator, "COUNTED", request.param)
    return request.param
