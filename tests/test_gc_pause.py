"""The one GC pause the loader, the snapshot writer, the live reader and Volcano's run share."""

from __future__ import annotations

import gc

import pytest

from tasplan.gc_pause import gc_paused


@pytest.fixture(autouse=True)
def _restore_gc():
    was = gc.isenabled()
    yield
    gc.unfreeze()
    if was:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("freeze", [False, True])
def test_paused_inside_and_restored_after_even_on_error(freeze: bool) -> None:
    gc.enable()
    with pytest.raises(ValueError), gc_paused(freeze=freeze):
        assert not gc.isenabled()
        raise ValueError
    assert gc.isenabled()


def test_left_disabled_when_it_was_disabled() -> None:
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()


@pytest.mark.parametrize("freeze", [False, True])
def test_freeze_moves_survivors_out_of_later_scans_only_when_asked(freeze: bool) -> None:
    gc.unfreeze()
    with gc_paused(freeze=freeze):
        kept = [[i] for i in range(1000)]
    assert (gc.get_freeze_count() >= len(kept)) is freeze
