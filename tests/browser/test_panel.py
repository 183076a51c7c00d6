"""The GeoAgent panel in a real JupyterLab shows what the server reports.

Opened the three ways a user can (command palette, sidebar icon, launcher
card); each must show the exact version and model that ``/geoagent/status``
returns from the same server.
"""

from __future__ import annotations

import pytest

from .lab_driver import ARTIFACTS_DIR, REPO_ROOT, run_palette_command, served_labextension

pytestmark = pytest.mark.browser

PANEL = "[data-testid='geoagent-panel']"
SIDEBAR_TAB = ".jp-SideBar .lm-TabBar-tab[data-id='geoagent-panel']"


def expect_status_shown(page, status: dict) -> None:
    """The panel is visible and its rows equal the server's status."""
    from playwright.sync_api import expect

    panel = page.locator(PANEL)
    expect(panel).to_be_visible()
    expect(panel.locator("[data-testid='geoagent-status']")).to_have_attribute("data-state", "ready", timeout=30_000)
    expect(panel.get_by_test_id("geoagent-status-version")).to_have_text(status["version"])
    expect(panel.get_by_test_id("geoagent-status-model")).to_have_text(status["model"])
    expect(panel.get_by_test_id("geoagent-status-provider")).to_have_text(status["provider"])
    expect(panel.get_by_test_id("geoagent-status-index-state")).to_have_text(status["index"]["state"])
    expect(panel.get_by_test_id("geoagent-status-error")).to_have_count(0)


def test_server_and_labextension_are_installed(jupyterlab):
    """Fail early, with the fix in the message, if a piece the UI needs is missing."""
    status = jupyterlab.get_json("geoagent/status")
    assert status["version"] and status["model"]

    served = served_labextension(jupyterlab)
    assert served, (
        "the geoagent-ext labextension is not installed here: `pip install -e .` "
        "(and `jupyter labextension develop --overwrite .` for live rebuilds)"
    )
    built = REPO_ROOT / "geoagent_ext" / "labextension"
    if (built / "package.json").exists():  # a source tree: its own build is what the browser gets
        assert (built / served["load"]).exists(), f"served {served['load']}, not this tree's build in {built}"


def test_open_from_command_palette_shows_status(lab_page):
    page, server = lab_page.page, lab_page.server
    status = server.get_json("geoagent/status")

    # Starts collapsed: only the sidebar icon is there, the panel is hidden.
    page.locator(SIDEBAR_TAB).wait_for(state="visible")
    assert not page.locator(PANEL).is_visible()

    run_palette_command(page, "Open GeoAgent")
    expect_status_shown(page, status)
    # The index of a fresh GEOAGENT_DATA_DIR is missing, and the panel says how to fix it.
    assert status["index"]["state"] == "missing"
    hint = page.get_by_test_id("geoagent-status-index-hint")
    assert hint.inner_text() == status["index"]["hint"].replace("`", "")
    assert hint.locator("code").inner_text() == "jupyter geoagent index build"

    ARTIFACTS_DIR.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS_DIR / "panel.png"))
    page.locator(PANEL).screenshot(path=str(ARTIFACTS_DIR / "panel-closeup.png"))
    own_errors = [e for e in lab_page.console_errors if "geoagent" in e.lower()]
    assert not own_errors, own_errors


def test_sidebar_icon_and_launcher_card_open_the_panel(lab_page):
    page, server = lab_page.page, lab_page.server
    status = server.get_json("geoagent/status")

    tab = page.locator(SIDEBAR_TAB)
    # The tab carries our LabIcon, not an empty placeholder.
    assert tab.locator("svg").count() == 1
    tab.click()
    expect_status_shown(page, status)

    tab.click()  # a second click collapses the sidebar again
    page.locator(PANEL).wait_for(state="hidden")

    page.locator(".jp-LauncherCard", has_text="Open GeoAgent").click()
    expect_status_shown(page, status)
