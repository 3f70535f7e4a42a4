"""Headless Chromium session: WebRider Appendix H, Table 42 (the executor's browser)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import Any

CHROMIUM_PATH = Path(os.environ.get("PATHWISE_CHROMIUM", "/usr/bin/chromium"))
VIEWPORT = {"width": 1024, "height": 768}
# Closed-network flags (issue 2, section 4): no sandbox (containers), no GPU, and nothing
# that phones home, so a run on 127.0.0.1 makes no outside request of its own.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
)


class BrowserMissingError(RuntimeError):
    """Debian's chromium is not installed where the runtime looks for it."""


def check_chromium(path: Path = CHROMIUM_PATH) -> Path:
    if not path.exists():
        raise BrowserMissingError(
            f"Chromium not found at {path}. Run the README set-up command "
            "(scripts/setup.sh installs Debian's chromium via apt), or set PATHWISE_CHROMIUM "
            "to another Chromium binary. Never run `playwright install`: it downloads a "
            "browser and fails on this network."
        )
    return path


class BrowserSession:
    """Playwright (sync API) + one headless Chromium + one context, as a context manager.

    `new_page()` hands out pages in the shared 1024x768 context; `page` is a first page
    created on entry so the common one-page case needs no extra call.
    """

    def __init__(
        self,
        *,
        executable_path: Path | str | None = None,
        headless: bool = True,
        viewport: dict[str, int] | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.executable_path = Path(executable_path) if executable_path else CHROMIUM_PATH
        self.headless = headless
        self.viewport = dict(viewport or VIEWPORT)
        self.args = [*CHROMIUM_ARGS, *extra_args]
        self._pw: Any = None
        self.browser: Any = None
        self.context: Any = None
        self.page: Any = None

    def __enter__(self) -> BrowserSession:
        check_chromium(self.executable_path)
        from playwright.sync_api import sync_playwright  # import here: CLI help stays fast

        self._pw = sync_playwright().start()
        try:
            self.browser = self._pw.chromium.launch(
                executable_path=str(self.executable_path),
                headless=self.headless,
                args=self.args,
            )
            self.context = self.browser.new_context(viewport=self.viewport)
            self.page = self.context.new_page()
        except BaseException:
            self.close()
            raise
        return self

    def new_page(self) -> Any:
        # Pages end with the context (close()): page.close() straight after an evaluate raced a
        # navigation never returns (Playwright 1.64/1.65, Chromium 156; docs/executor.md).
        return self.context.new_page()

    def close(self) -> None:
        # Each step guarded: a crashed browser must not keep the Playwright driver alive.
        for obj in (self.context, self.browser):
            if obj is not None:
                with contextlib.suppress(Exception):
                    obj.close()
        if self._pw is not None:
            with contextlib.suppress(Exception):
                self._pw.stop()
        self._pw = self.browser = self.context = self.page = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
