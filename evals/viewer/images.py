"""Screenshots for display: trim the page's empty backdrop so small task areas stay legible.

MiniWoB++ draws its task in a 160x210 box in the corner of a 1024x768 viewport; shown whole,
the labels are unreadable at page width. Trimming happens in memory on the way out; the
recorded file is never touched and the untrimmed one is one click away.
"""

from __future__ import annotations

import io
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageChops, UnidentifiedImageError

MARGIN = 8
KEEP_IF_ABOVE = 0.8  # trimming that keeps most of the image is not worth a second version


def trim_png(data: bytes) -> bytes:
    """The image cropped to what differs from its bottom-right backdrop colour (plus a margin)."""
    try:
        with Image.open(io.BytesIO(data)) as im:
            rgb = im.convert("RGB")
    except (UnidentifiedImageError, OSError):
        return data
    w, h = rgb.size
    backdrop = Image.new("RGB", rgb.size, rgb.getpixel((w - 1, h - 1)))
    box = ImageChops.difference(rgb, backdrop).getbbox()
    if box is None:
        return data
    x0, y0 = max(0, box[0] - MARGIN), max(0, box[1] - MARGIN)
    x1, y1 = min(w, box[2] + MARGIN), min(h, box[3] + MARGIN)
    if (x1 - x0) * (y1 - y0) > KEEP_IF_ABOVE * w * h:
        return data
    out = io.BytesIO()
    rgb.crop((x0, y0, x1, y1)).save(out, format="PNG")
    return out.getvalue()


@lru_cache(maxsize=512)
def _trimmed_file(path: str, mtime_ns: int, size: int) -> bytes:
    return trim_png(Path(path).read_bytes())


def trimmed_file(path: Path) -> bytes:
    st = path.stat()
    return _trimmed_file(str(path), st.st_mtime_ns, st.st_size)
