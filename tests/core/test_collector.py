"""Front ends load with fewer young collections and give the collector its thresholds
back (core/collector.py)."""

from __future__ import annotations

import gc

import pytest

from karyi.core.collector import YOUNG_THRESHOLD, fewer_collections


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
