"""Screenshots for display: trim the page's empty backdrop so small task areas stay legible.

MiniWoB++ draws its task in a 160x210 box in the corner of a 1024x768 viewport; shown whole,
the labels are unreadable at page width. Trimming happens in memory on the way out; the
recorded file is never touched and the untrimmed one is one click away.
"""

from __future__ import annotations

import hashlib
import io
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

MARGIN = 8
KEEP_IF_ABOVE = 0.8  # trimming that keeps most of the image is not worth a second version
CACHE_SIZE = 256
_cache: OrderedDict[bytes, bytes] = OrderedDict()
_lock = threading.Lock()


def trim_png(data: bytes) -> bytes:
    """The image cropped to what differs from its bottom-right backdrop colour (plus a margin);
    results are cached by content digest, since pages show the same screenshot again and again."""
    key = hashlib.sha1(data).digest()
    with _lock:
        if key in _cache:
            _cache.move_to_end(key)
            return _cache[key]
    out = _trim(data)
    with _lock:
        _cache[key] = out
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def _trim(data: bytes) -> bytes:
    try:
        with Image.open(io.BytesIO(data)) as im:
            rgb = im.convert("RGB")
    except (UnidentifiedImageError, OSError):
        return data
    px = np.asarray(rgb)
    h, w = px.shape[:2]
    differs = (px != px[h - 1, w - 1]).any(axis=2)
    rows, cols = np.flatnonzero(differs.any(axis=1)), np.flatnonzero(differs.any(axis=0))
    if rows.size == 0:
        return data
    x0, y0 = max(0, int(cols[0]) - MARGIN), max(0, int(rows[0]) - MARGIN)
    x1, y1 = min(w, int(cols[-1]) + 1 + MARGIN), min(h, int(rows[-1]) + 1 + MARGIN)
    if (x1 - x0) * (y1 - y0) > KEEP_IF_ABOVE * w * h:
        return data
    out = io.BytesIO()
    rgb.crop((x0, y0, x1, y1)).save(out, format="PNG")
    return out.getvalue()


def trimmed_file(path: Path) -> bytes:
    return trim_png(path.read_bytes())
