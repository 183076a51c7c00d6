"""A user's day with the GeoAgent panel, in a real JupyterLab, kernel and Chromium.

The server's model is scripted (tests/browser/scripted_model.py), everything
else is real: the agent loop and tree search, trials in a forked kernel, the
websocket stream, the notebook, ipyleaflet, JupyterLab's inline completer.

Journey: type a request, watch the steps complete, open the diff of a failing
step, fix it in the editor, see the run finish and the cells appear (with a
map) below the user's own cell, which stays untouched; then a tree-search run;
then an inline suggestion accepted with Tab. Each state is saved as a
screenshot in test-artifacts/.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest

from .lab_driver import ARTIFACTS_DIR

pytestmark = pytest.mark.browser

PANEL = "[data-testid='geoagent-panel']"
SIDEBAR_TAB = ".jp-SideBar .lm-TabBar-tab[data-id='geoagent-panel']"
RUN_TIMEOUT_MS = 120_000  # forked trials and a cold ipyleaflet import on a busy 2-core box

SECONDS = re.compile(r"^\d+(\.\d)? s$|^\d+ min \d\d s$")
USER_CELL = "# my own analysis: GeoAgent must not touch this cell\nuser_value = 41"
FIX = 'total_ha = parcels["area_m2"].sum() / 10_000; print(f"total: {total_ha:.2f} ha")'


def api(server, method: str, path: str, body=None):
    request = urllib.request.Request(
        server.url + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def create_notebook(server, name: str, sources: list[str]) -> None:
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None, "id": f"user-{i}"}
             for i, s in enumerate(sources)]
    content = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
               "nbformat": 4, "nbformat_minor": 5}
    api(server, "PUT", f"api/contents/{name}", {"type": "notebook", "format": "json", "content": content})


def notebook(page):
    """The notebook in the current tab (others stay in the DOM, hidden)."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden)")


def open_notebook(page, server, name: str) -> None:
    """Open by URL (as a bookmarked link would) and wait until its kernel runs.

    On a cold page JupyterLab may ask which kernel to start (its kernel specs
    are not loaded yet when the notebook opens); a user clicks "Select", so
    does this.
    """
    from playwright.sync_api import expect

    # `reset`: only this notebook, not the tabs an earlier test left in the shared workspace.
    page.goto(server.url + f"lab/tree/{name}?reset&token={server.token}")
    page.wait_for_selector("#jupyterlab-splash-screen", state="detached", timeout=90_000)
    expect(notebook(page).locator(".jp-Cell").first).to_be_visible(timeout=60_000)
    deadline = time.monotonic() + 90
    while not any(s["path"] == name and s.get("kernel") for s in api(server, "GET", "api/sessions")):
        select = page.locator(".jp-Dialog .jp-mod-accept", has_text="Select")
        if select.is_visible():
            select.click()
        assert time.monotonic() < deadline, f"no kernel started for {name}"
        time.sleep(0.5)
    expect(page.locator(".jp-Dialog")).to_have_count(0)
    expect(notebook(page).locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(1, timeout=90_000)


def shot(page, name: str, locator=None) -> None:
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    (locator or page).screenshot(path=str(ARTIFACTS_DIR / name))


def step(panel, i: int):
    return panel.get_by_test_id("geoagent-step").nth(i)


def start_run(page, request: str, strategy: str = "loop") -> None:
    panel = page.locator(PANEL)
    panel.get_by_test_id("geoagent-request-text").fill(request)
    panel.get_by_test_id("geoagent-strategy").select_option(strategy)
    panel.get_by_test_id("geoagent-run").click()


def test_run_fix_and_cells_then_tree_search(lab_page):
    from playwright.sync_api import expect

    page, server = lab_page.page, lab_page.server
    create_notebook(server, "journey.ipynb", [USER_CELL])
    open_notebook(page, server, "journey.ipynb")
    page.locator(SIDEBAR_TAB).click()
    panel = page.locator(PANEL)
    expect(panel.get_by_test_id("geoagent-request-target")).to_have_text("Runs in journey.ipynb")
    expect(panel.get_by_test_id("geoagent-model")).to_have_value(server.get_json("geoagent/status")["model"])

    # The frontend told the server which notebook is active (the chat persona runs there).
    deadline = time.monotonic() + 30
    while api(server, "GET", "geoagent/active-notebook")["path"] != "journey.ipynb":
        assert time.monotonic() < deadline, "the active notebook was never reported"
        time.sleep(0.3)

    start_run(page, "parcel areas: a table of the parcels, their total area in hectares, and a map")
    run_view = panel.get_by_test_id("geoagent-run-view")
    expect(run_view).to_be_visible()
    # The plan arrives, then step 1 completes while step 2 is tried.
    expect(panel.get_by_test_id("geoagent-step")).to_have_count(3, timeout=RUN_TIMEOUT_MS)
    expect(step(panel, 0)).to_have_attribute("data-status", "solved", timeout=RUN_TIMEOUT_MS)
    expect(step(panel, 0).get_by_test_id("geoagent-step-label")).to_have_text("done")
    expect(step(panel, 0).get_by_test_id("geoagent-step-time")).to_have_text(SECONDS)
    shot(page, "panel-run.png")

    # Step 2 fails twice (a column the table does not have): it needs the user.
    expect(run_view).to_have_attribute("data-status", "needs_human", timeout=RUN_TIMEOUT_MS)
    expect(step(panel, 1)).to_have_attribute("data-status", "needs_human")
    expect(step(panel, 1).get_by_test_id("geoagent-step-attempts")).to_have_text("2 attempts")
    expect(panel.get_by_test_id("geoagent-fix-error")).to_contain_text("KeyError")
    expect(panel.get_by_test_id("geoagent-fix-error")).to_contain_text("area")

    # The diff between the two attempts: the repair's old and new lines.
    panel.get_by_test_id("geoagent-tab-changes").click()
    diff = panel.get_by_test_id("geoagent-diff-view")
    expect(diff.locator(".cm-deletedChunk")).to_contain_text('parcels["area_ha"]')
    expect(diff.locator(".cm-changedLine").first).to_contain_text('parcels["area"]')
    expect(panel.get_by_test_id("geoagent-diff-error")).to_contain_text("KeyError")
    shot(page, "panel-diff.png")

    # Fix it in the editor, pre-filled with the last attempt.
    editor = panel.get_by_test_id("geoagent-fix-code").locator(".cm-content")
    expect(editor).to_contain_text('parcels["area"].sum() / 10_000')
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type(FIX)
    expect(editor).to_have_text(FIX)
    shot(page, "panel-fix.png")
    panel.get_by_test_id("geoagent-fix-run").click()

    expect(run_view).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(step(panel, 1).get_by_test_id("geoagent-step-label")).to_have_text("done (your fix)")
    expect(panel.get_by_test_id("geoagent-run-message")).to_contain_text("6 cells added to the notebook")
    expect(panel.get_by_test_id("geoagent-cancel")).to_have_count(0)

    # The notebook: the user's cell first and unchanged, then heading + code + output per step.
    cells = notebook(page).locator(".jp-Cell")
    expect(cells).to_have_count(7)
    first_source = cells.nth(0).locator(".cm-content").inner_text()
    assert first_source == USER_CELL, first_source
    expect(cells.nth(1)).to_contain_text("GeoAgent step 1: Make a table of the parcels")
    expect(cells.nth(2).locator(".jp-OutputArea-output")).to_contain_text("area_m2")
    expect(cells.nth(3)).to_contain_text("(your fix)")
    expect(cells.nth(4).locator(".jp-OutputArea-output")).to_contain_text("total: 5.16 ha")
    expect(cells.nth(5)).to_contain_text("GeoAgent step 3: Show the parcels on a map")
    # The map is a live ipyleaflet widget in the inserted cell's output.
    leaflet = cells.nth(6).locator(".leaflet-container")
    expect(leaflet).to_be_visible(timeout=60_000)
    expect(cells.nth(6).locator(".leaflet-marker-icon")).to_have_count(3)
    leaflet.scroll_into_view_if_needed()
    shot(page, "notebook-cells.png")

    # A second run, by tree search: an answer and its repair fail, a second answer fails, its repair works.
    start_run(page, "search demo: total parcel area in hectares", strategy="mcts")
    expect(run_view).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    panel.get_by_test_id("geoagent-tab-tree").click()
    tree = panel.get_by_test_id("geoagent-tree")
    nodes = tree.get_by_test_id("geoagent-tree-node")
    expect(nodes.filter(has=page.locator(".jp-GeoAgent-tree-icon", has_text="✗"))).to_have_count(3)
    expect(tree.locator("[data-status='chosen']")).to_have_count(1)
    # The chosen node and the failed second answer it repairs are the highlighted path.
    expect(tree.locator(".jp-GeoAgent-tree-onPath")).to_have_count(2)
    expect(tree.locator(".jp-GeoAgent-tree-onPath").first).to_have_attribute("data-status", "failed")
    failed = tree.locator("[data-status='failed']").first
    assert "error: " in failed.get_attribute("title") and "visits" in failed.get_attribute("title")
    failed.hover()
    info = tree.get_by_test_id("geoagent-tree-info")
    expect(info).to_contain_text("failed")
    expect(info).to_contain_text(re.compile(r"visits \d+ · Q -1\.00 · prior \d\.\d\d"))
    expect(info).to_contain_text("error: ")
    shot(page, "panel-tree.png")
    own_errors = [e for e in lab_page.console_errors if "geoagent" in e.lower()]
    assert not own_errors, own_errors


def test_inline_suggestion_accepted_with_tab(browser, jupyterlab):
    from playwright.sync_api import expect

    server = jupyterlab
    # JupyterLab's inline completer settings turn our provider on (it is off by default).
    api(server, "PUT", "lab/api/settings/@jupyterlab/completer-extension:inline-completer",
        {"raw": json.dumps({"providers": {"geoagent": {"enabled": True, "debouncerDelay": 100, "timeout": 20000}}})})
    create_notebook(server, "inline.ipynb", [
        "import geopandas as gpd\nfrom shapely.geometry import Point\n"
        "parcels = gpd.GeoDataFrame({'name': ['A', 'B']}, geometry=[Point(13.4, 52.5), Point(13.5, 52.6)], crs='EPSG:4326')",
    ])
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        open_notebook(page, server, "inline.ipynb")
        first = notebook(page).locator(".jp-Cell").first
        first.locator(".cm-content").click()
        page.keyboard.press("Shift+Enter")  # runs the cell, opens a new one below
        expect(first.locator(".jp-InputPrompt")).to_have_text(re.compile(r"\[\d+\]:"), timeout=90_000)
        editor = notebook(page).locator(".jp-Cell").nth(1).locator(".cm-content")
        expect(editor).to_be_focused()
        # Typing `parcels.` warms the server's view of the kernel (variables, members);
        # a user pauses about as long before choosing the method.
        page.keyboard.type("parcels.")
        page.wait_for_timeout(3000)
        page.keyboard.type("to_")
        typed = time.monotonic()
        ghost = page.locator(".jp-GhostText")
        expect(ghost).to_have_text("crs(epsg=3035)", timeout=30_000)
        latency = time.monotonic() - typed
        print(f"inline_suggestion_visible_s={latency:.2f}")
        shot(page, "inline-suggestion.png")
        page.keyboard.press("Tab")
        expect(editor).to_have_text("parcels.to_crs(epsg=3035)")
        expect(ghost).to_have_count(0)
    except Exception:
        ARTIFACTS_DIR.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS_DIR / "test_inline_suggestion-failure.png"))
        raise
    finally:
        context.close()
        api(server, "PUT", "lab/api/settings/@jupyterlab/completer-extension:inline-completer", {"raw": "{}"})
