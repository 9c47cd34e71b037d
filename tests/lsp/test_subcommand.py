"""`karyi lsp` imports its server with fewer collections of the youngest generation and
gives the collector its thresholds back before it serves (lsp/subcommand.py)."""

from __future__ import annotations

import gc

import pytest

from karyi.lsp.subcommand import YOUNG_THRESHOLD, _fewer_collections


def test_the_collector_gets_its_thresholds_back_even_when_start_up_fails() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), _fewer_collections():
        assert gc.get_threshold() == (YOUNG_THRESHOLD, *before[1:])
        raise RuntimeError("the server could not be built")
    assert gc.get_threshold() == before
