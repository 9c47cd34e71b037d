"""Checkpoints of a workspace of several folders: one restore puts every folder back."""

from __future__ import annotations

from pathlib import Path

from karyi.agent.session.checkpoints import Checkpoints


def test_a_checkpoint_restores_every_folder(tmp_path: Path) -> None:
    api, web = tmp_path / "api", tmp_path / "web"
    for folder in (api, web):
        folder.mkdir()
        (folder / "a.txt").write_text("before\n")
    checkpoints = Checkpoints(api, folders=[web])
    first = checkpoints.snapshot("first")
    (api / "a.txt").write_text("after\n")
    (web / "a.txt").write_text("after\n")
    (web / "new.txt").write_text("new\n")
    checkpoints.snapshot("second")
    checkpoints.restore(first.id)
    assert (api / "a.txt").read_text() == (web / "a.txt").read_text() == "before\n"
    assert not (web / "new.txt").exists()
    assert not (web / ".karyi").exists()  # every shadow repository lives in the root's .karyi
