"""Front ends load with fewer young collections and give the collector its thresholds
back (core/collector.py)."""

from __future__ import annotations

import gc

import pytest

from karyi.core.collector import YOUNG_THRESHOLD, fewer_collections, paused, resume


def test_the_collector_gets_its_thresholds_back_even_when_start_up_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        raise RuntimeError("the server could not be built")
    assert gc.get_threshold() == before


def test_nested_uses_give_the_thresholds_back_once_the_outer_one_is_left() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        with fewer_collections():
            pass
        assert gc.get_threshold()[0] == YOUNG_THRESHOLD
    assert gc.get_threshold() == before


def test_a_paused_start_up_resumes_once_with_what_it_loaded_frozen() -> None:
    try:
        with paused():
            assert not gc.isenabled()
            loaded = [[i] for i in range(100)]  # what a start-up keeps
            resume()  # the command says its start-up is over
            assert gc.isenabled() and gc.get_freeze_count() >= len(loaded)
            frozen = gc.get_freeze_count()
            resume()  # only the first call does anything
            assert gc.get_freeze_count() == frozen
        assert gc.isenabled()
    finally:
        gc.unfreeze()


def test_a_start_up_that_fails_before_it_is_over_gets_the_collector_back() -> None:
    try:
        with pytest.raises(RuntimeError), paused():
            raise RuntimeError("no model configured")
        assert gc.isenabled()
    finally:
        gc.unfreeze()
