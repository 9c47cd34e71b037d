"""Pictures are checked by their bytes, limited in size, and never shown as bytes."""

from __future__ import annotations

import base64
import logging
from pathlib import Path

import pytest

from karyi.core.images import (
    MAX_IMAGE_BYTES,
    MAX_IMAGES,
    ElideImageData,
    Image,
    ImageError,
    checked_count,
    image_from_base64,
    image_from_bytes,
    image_from_file,
    sniff,
)
from tests.support.pictures import GIF, JPEG_HEAD, WEBP, png


@pytest.mark.parametrize(
    ("data", "mime"),
    [(png(), "image/png"), (JPEG_HEAD, "image/jpeg"), (GIF, "image/gif"), (WEBP, "image/webp")],
)
def test_the_four_kinds_are_known_by_their_magic_bytes(data: bytes, mime: str) -> None:
    assert sniff(data) == mime
    assert image_from_bytes(data, name="x") == Image(mime, data, "x")


def test_a_name_or_declared_type_is_not_trusted() -> None:
    with pytest.raises(ImageError, match=r"'shot.png' is not a PNG, JPEG, GIF or WebP"):
        image_from_bytes(b"<svg xmlns='http://www.w3.org/2000/svg'/>", name="shot.png")
    with pytest.raises(ImageError, match="says image/jpeg but its content is image/png"):
        image_from_bytes(png(), mime="image/jpeg")


def test_too_large_and_empty_are_refused_with_the_limit() -> None:
    big = png() + b"\0" * MAX_IMAGE_BYTES
    with pytest.raises(ImageError, match=r"the limit is 3\.75 MiB"):
        image_from_bytes(big)
    with pytest.raises(ImageError, match=r"the limit is 3\.75 MiB"):
        image_from_base64(base64.b64encode(big).decode())
    with pytest.raises(ImageError, match="is empty"):
        image_from_bytes(b"")


def test_base64_and_data_urls_round_trip_through_json() -> None:
    image = image_from_base64("data:image/png;base64," + base64.b64encode(png()).decode(), name="a")
    assert image.mime == "image/png" and image.data == png()
    assert image.data_url().startswith("data:image/png;base64,iVBOR")
    assert Image.from_json(image.to_json()) == image
    with pytest.raises(ImageError, match="not valid base64"):
        image_from_base64("not base64!!")
    with pytest.raises(ImageError, match="an image must be an object"):
        Image.from_json("iVBOR")


def test_files_are_read_and_bad_ones_named(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(png())
    assert image_from_file(tmp_path / "a.png").name == "a.png"
    with pytest.raises(ImageError, match="does not exist"):
        image_from_file(tmp_path / "missing.png")
    with pytest.raises(ImageError, match="is a directory"):
        image_from_file(tmp_path)
    (tmp_path / "big.png").write_bytes(png() + b"\0" * MAX_IMAGE_BYTES)
    with pytest.raises(ImageError, match="limit"):
        image_from_file(tmp_path / "big.png")


def test_the_bytes_never_appear_in_repr_or_describe() -> None:
    image = image_from_bytes(png(), name="shot.png")
    assert "iVBOR" not in repr(image) and "\\x89" not in repr(image)
    assert image.describe() == f"shot.png (image/png, {len(png()) / 1024:.1f} KB)"


def test_one_message_carries_at_most_max_images() -> None:
    image = image_from_bytes(png())
    assert len(checked_count([image] * MAX_IMAGES)) == MAX_IMAGES
    with pytest.raises(ImageError, match=f"at most {MAX_IMAGES}"):
        checked_count([image] * (MAX_IMAGES + 1))


def test_log_lines_carry_the_length_of_a_picture_not_its_data(
    caplog: pytest.LogCaptureFixture,
) -> None:
    image = image_from_bytes(png() + bytes(range(256)) * 2)  # a picture, by its header
    logger = logging.getLogger("karyi.test.images")
    caplog.handler.addFilter(ElideImageData())
    with caplog.at_level(logging.INFO):
        logger.info("Sending data: %s", {"images": [image.to_json()], "url": image.data_url()})
    line = caplog.records[0].getMessage()
    assert image.base64() not in line and "[base64 data, " in line
    assert line.startswith("Sending data: {'images': [{'mimeType': 'image/png', 'data': '[base64")
