"""Real JupyterLab in real Chromium, for tests that drive the GeoAgent UI.

Fixtures (reuse them for later UI tests, e.g. driving a run):

- ``jupyterlab``: a ``jupyter lab`` subprocess from this venv with this
  tree's extension (its Python package and, when built, its labextension: see
  ``lab_driver.tree_labextension_args``), on a free port, a known token, a temp root dir and a
  temp ``GEOAGENT_DATA_DIR``; one per test session because a start costs
  ~10 s on two cores. Always killed (whole process group) at the end.
- ``browser``: headless system Chromium driven by Python playwright with
  ``executable_path`` (browser downloads fail on these machines; never run
  ``playwright install``). Module-scoped on purpose: sync playwright keeps
  an asyncio loop running until it stops, and pytest-jupyter's autouse loop
  fixture in later (non-browser) tests would grab that loop and fail.
- ``lab_page``: a fresh browser context + page with JupyterLab loaded and
  ready; console errors are collected, and a screenshot is saved to
  ``test-artifacts/`` when the test fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from .lab_driver import (
    ARTIFACTS_DIR,
    CHROMIUM_ARGS,
    LAB_READY_TIMEOUT_MS,
    SCRIPTED_MODEL,
    LabServer,
    chromium_path,
    start_jupyterlab,
    wait_for_lab,
)


@pytest.fixture(scope="session")
def jupyterlab(tmp_path_factory) -> Iterator[LabServer]:
    # A scripted model (tests/browser/scripted_model.py) so runs and inline
    # suggestions are real but deterministic; 2 attempts per step keep failures quick.
    server = start_jupyterlab(
        tmp_path_factory.mktemp("jupyterlab"),
        extra_args=[
            f"--GeoAgentSettings.model=scripted:{SCRIPTED_MODEL}",
            f"--GeoAgentSettings.inline_model=scripted:{SCRIPTED_MODEL}",
            "--GeoAgentSettings.max_attempts=2",
        ],
    )
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=30_000)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(autouse=True)
def jp_asyncio_loop():
    """Disable pytest-jupyter's per-test loop here: sync playwright keeps its
    own loop running in a greenlet, which that fixture would pick up and close."""
    yield None


@pytest.fixture(autouse=True)
def jp_server_cleanup():
    """No in-process jupyter_server here (ours is a subprocess); see above."""
    yield


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """Expose each phase's report on the item so fixtures know if a test failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)


@dataclass
class LabPage:
    page: Any
    server: LabServer
    console_errors: list[str]


@pytest.fixture
def lab_page(browser, jupyterlab, request) -> Iterator[LabPage]:
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    # Generous: two cores shared with kernels and other test processes.
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(f"pageerror: {exc}"))
    page.on("console", lambda msg: errors.append(f"console.{msg.type}: {msg.text}") if msg.type == "error" else None)
    # `reset` drops the workspace a previous test saved on the shared server,
    # so every test starts from the default layout.
    page.goto(jupyterlab.lab_url() + "&reset", timeout=LAB_READY_TIMEOUT_MS)
    wait_for_lab(page)
    try:
        yield LabPage(page, jupyterlab, errors)
    finally:
        failed = getattr(request.node, "rep_call", None)
        if failed is not None and failed.failed:
            ARTIFACTS_DIR.mkdir(exist_ok=True)
            name = re.sub(r"[^\w.-]+", "_", request.node.name)
            try:
                page.screenshot(path=str(ARTIFACTS_DIR / f"{name}-failure.png"))
            except Exception:  # noqa: BLE001 - a failed screenshot must not hide the failure
                pass
        context.close()
