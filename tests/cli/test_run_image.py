"""`karyi run --image FILE` as a user runs it: a real process, the fake model server
through the real SDKs, which must see an image part in both wire shapes."""

from __future__ import annotations

import base64
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_model_server import FakeModelServer
from tests.support.pictures import GIF, png

KARYI = [sys.executable, "-m", "karyi"]


def _run(args: list[str], ws: Path, model: str, base_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KARYI_MODEL": model, "KARYI_BASE_URL": base_url, "KARYI_API_KEY": "k"}
    return subprocess.run(
        [*KARYI, "run", "--workspace", str(ws), "--yes", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        start_new_session=True,
    )


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_two_images_reach_the_model_as_image_parts(
    api: str, ws_root: Path, tmp_path: Path, fake_llm: FakeModelServer
) -> None:
    (tmp_path / "shot.png").write_bytes(png())
    (tmp_path / "anim.gif").write_bytes(GIF)
    fake_llm.script("Two pictures.")
    url = fake_llm.openai_url if api == "openai" else fake_llm.anthropic_url
    model = "openai:gpt-4.1" if api == "openai" else "anthropic:claude-sonnet-4-5"
    args = ["--image", str(tmp_path / "shot.png"), "--image", str(tmp_path / "anim.gif")]
    done = _run([*args, "describe these"], ws_root, model, url)
    assert done.returncode == 0, done.stderr
    assert "Two pictures." in done.stdout
    user = next(m for m in fake_llm.requests[0].body["messages"] if m["role"] == "user")
    png64, gif64 = base64.b64encode(png()).decode(), base64.b64encode(GIF).decode()
    if api == "openai":
        images = [p["image_url"]["url"] for p in user["content"] if p["type"] == "image_url"]
        assert images == [f"data:image/png;base64,{png64}", f"data:image/gif;base64,{gif64}"]
    else:
        images = [p["source"] for p in user["content"] if p["type"] == "image"]
        assert images == [
            {"type": "base64", "media_type": "image/png", "data": png64},
            {"type": "base64", "media_type": "image/gif", "data": gif64},
        ]
    assert png64 not in done.stderr + done.stdout  # never printed


def test_a_file_that_is_no_picture_is_a_usage_error(
    ws_root: Path, tmp_path: Path, fake_llm: FakeModelServer
) -> None:
    (tmp_path / "fake.png").write_text("not really a png")
    done = _run(["--image", str(tmp_path / "fake.png"), "look"], ws_root, "openai:m", "http://x")
    assert done.returncode == 2
    assert "--image: image 'fake.png' is not a PNG, JPEG, GIF or WebP picture" in done.stderr
    assert fake_llm.requests == []
