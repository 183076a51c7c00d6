"""A user's day with the GeoAgent panel, in a real JupyterLab, kernel and Chromium.

The server's model is scripted (tests/browser/scripted_model.py), everything
else is real: the agent loop and tree search, trials in a forked kernel, the
websocket stream, the notebook, ipyleaflet, JupyterLab's inline completer.

Journey: type a request, watch the steps complete, open the diff of a failing
step, fix it in the editor, see the run finish and the cells appear (with a
map) below the user's own cell, which stays untouched; then a tree-search run;
then an inline suggestion accepted with Tab. Then, in approval mode, a review of
the deliverable contract: the user edits the requirements, approves each
attempt, and sees each requirement's check on the written file. Each state is
saved as a screenshot in test-artifacts/.
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
        server.url + path,
        method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"token {server.token}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read()
        return json.loads(text) if text else None


def create_notebook(server, name: str, sources: list[str]) -> None:
    cells = [
        {"cell_type": "code", "source": s, "metadata": {}, "outputs": [], "execution_count": None, "id": f"user-{i}"}
        for i, s in enumerate(sources)
    ]
    content = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
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
    expect(notebook(page).locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")).to_have_count(
        1, timeout=90_000
    )


def shot(page, name: str, locator=None) -> None:
    ARTIFACTS_DIR.mkdir(exist_ok=True)
    (locator or page).screenshot(path=str(ARTIFACTS_DIR / name))


def subtask_row(panel, i: int):
    return panel.get_by_test_id("geoagent-subtask").nth(i)


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
    expect(panel.get_by_test_id("geoagent-subtask")).to_have_count(3, timeout=RUN_TIMEOUT_MS)
    expect(subtask_row(panel, 0)).to_have_attribute("data-status", "solved", timeout=RUN_TIMEOUT_MS)
    expect(subtask_row(panel, 0).get_by_test_id("geoagent-subtask-label")).to_have_text("done")
    expect(subtask_row(panel, 0).get_by_test_id("geoagent-subtask-time")).to_have_text(SECONDS)
    shot(page, "panel-run.png")

    # Step 2 fails twice (a column the table does not have): it needs the user.
    expect(run_view).to_have_attribute("data-status", "needs_human", timeout=RUN_TIMEOUT_MS)
    expect(subtask_row(panel, 1)).to_have_attribute("data-status", "needs_human")
    expect(subtask_row(panel, 1).get_by_test_id("geoagent-subtask-attempts")).to_have_text("2 attempts")
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
    expect(subtask_row(panel, 1).get_by_test_id("geoagent-subtask-label")).to_have_text("done (your fix)")
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
    assert not api(server, "GET", "geoagent/status")["inline_loaded"]  # suggestions were off until now
    # JupyterLab's inline completer settings turn our provider on (it is off by default).
    api(
        server,
        "PUT",
        "lab/api/settings/@jupyterlab/completer-extension:inline-completer",
        {"raw": json.dumps({"providers": {"geoagent": {"enabled": True, "debouncerDelay": 100, "timeout": 20000}}})},
    )
    create_notebook(
        server,
        "inline.ipynb",
        [
            "import geopandas as gpd\nfrom shapely.geometry import Point\n"
            "parcels = gpd.GeoDataFrame({'name': ['A', 'B']}, geometry=[Point(13.4, 52.5), Point(13.5, 52.6)], "
            "crs='EPSG:4326')",
        ],
    )
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        open_notebook(page, server, "inline.ipynb")
        # The page read the setting and told the server, which loads its inline model before any typing.
        deadline = time.monotonic() + 30
        while not api(server, "GET", "geoagent/status")["inline_loaded"]:
            assert time.monotonic() < deadline, "the inline model was not loaded when suggestions were on"
            time.sleep(0.2)
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


CONTRACT_REQUEST = (
    "Write `parcels.csv` with the columns `parcel` and `area_ha` (each parcel's area in hectares) "
    "from `parcels.geojson`, sorted by `parcel`."
)
ADDED = "`area_ha` holds integer hectares"


def parcels_geojson() -> str:
    """Three rectangles in Berlin (about 1.1, 1.7 and 3.4 ha), in file order C, A, B."""

    def box(name, lon, lat, dlon, dlat):
        ring = [[lon, lat], [lon + dlon, lat], [lon + dlon, lat + dlat], [lon, lat + dlat], [lon, lat]]
        return {
            "type": "Feature",
            "properties": {"parcel": name},
            "geometry": {"type": "Polygon", "coordinates": [ring]},
        }

    features = [
        box("C", 13.400, 52.520, 0.0015, 0.001),
        box("A", 13.410, 52.520, 0.0022, 0.001),
        box("B", 13.420, 52.520, 0.003, 0.0015),
    ]
    return json.dumps({"type": "FeatureCollection", "features": features})


def requirement(panel, req_id: str):
    return panel.locator(f"[data-testid='geoagent-requirement'][data-requirement='{req_id}']")


def test_contract_review_then_checks_in_approval_mode(lab_page):
    """Approval mode: the user edits the deliverable contract (deletes "sorted by `parcel`", adds
    an integer requirement; the area in hectares is also checked against the parcels' own areas),
    approves each attempt, and sees the added requirement fail on the written file (with what was
    seen), then hold after the repair; the server checked exactly the edited contract."""
    from playwright.sync_api import expect

    page, server = lab_page.page, lab_page.server
    api(server, "PUT", "api/contents/parcels.geojson", {"type": "file", "format": "text", "content": parcels_geojson()})
    create_notebook(server, "contract.ipynb", ["# parcels for GeoAgent"])
    open_notebook(page, server, "contract.ipynb")
    page.locator(SIDEBAR_TAB).click()
    panel = page.locator(PANEL)
    expect(panel.get_by_test_id("geoagent-request-target")).to_have_text("Runs in contract.ipynb")
    panel.get_by_test_id("geoagent-request-text").fill(CONTRACT_REQUEST)
    panel.get_by_test_id("geoagent-approval").check()
    panel.get_by_test_id("geoagent-run").click()

    # Before planning, the contract as the rules read the request, as an editor.
    run_view = panel.get_by_test_id("geoagent-run-view")
    expect(run_view).to_have_attribute("data-status", "awaiting_contract", timeout=RUN_TIMEOUT_MS)
    editor = panel.get_by_test_id("geoagent-contract-editor")
    rows = editor.get_by_test_id("geoagent-requirement-edit-row")
    expect(rows).to_have_count(7)
    expect(editor.get_by_test_id("geoagent-contract-output")).to_have_attribute("data-output", "parcels.csv")
    inputs = editor.get_by_test_id("geoagent-requirement-input")
    expect(inputs.nth(1)).to_have_value(
        re.compile(r"^has the columns parcel, area_ha, and no geometry or row-index column ")
    )
    sorted_row = editor.locator("[data-testid='geoagent-requirement-edit-row'][data-requirement='r3']")
    expect(sorted_row.get_by_test_id("geoagent-requirement-input")).to_have_value(
        "rows are sorted by `parcel` ascending"
    )
    expect(panel.get_by_test_id("geoagent-subtask")).to_have_count(0)

    # Delete the sort order, add an integer requirement, send.
    sorted_row.get_by_test_id("geoagent-requirement-delete").click()
    expect(rows).to_have_count(6)
    editor.get_by_test_id("geoagent-requirement-new").fill(ADDED)
    editor.get_by_test_id("geoagent-requirement-add").click()
    expect(rows).to_have_count(7)
    expect(rows.nth(6)).to_have_attribute("data-requirement", "")
    expect(inputs.nth(6)).to_have_value(ADDED)
    expect(rows.nth(6).get_by_test_id("geoagent-requirement-you")).to_have_count(1)
    shot(page, "panel-contract-review.png")
    editor.get_by_test_id("geoagent-contract-use").click()

    # The contract as the user left it; the plan; the first attempt waits for approval.
    expect(editor).to_have_count(0)
    expect(panel.get_by_test_id("geoagent-contract-summary")).to_have_text("0/7 hold · as you reviewed it")
    shown = panel.get_by_test_id("geoagent-requirement")
    expect(shown).to_have_count(7)
    expect(requirement(panel, "r3")).to_have_count(0)
    added = requirement(panel, "u7")
    expect(added.get_by_test_id("geoagent-requirement-text")).to_have_text(ADDED)
    expect(added.get_by_test_id("geoagent-requirement-you")).to_have_count(1)
    expect(panel.get_by_test_id("geoagent-subtask")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
    expect(run_view).to_have_attribute("data-status", "awaiting_approval", timeout=RUN_TIMEOUT_MS)
    expect(panel.get_by_test_id("geoagent-approval-code")).to_contain_text(".round(2)")
    # The per-step review before commit: what the notebook gets if this is approved.
    expect(panel.get_by_test_id("geoagent-approval-cells")).to_contain_text("adds two cells to the notebook")
    panel.get_by_test_id("geoagent-approve").click()

    # Attempt 1 wrote decimals: the added requirement fails on the file, with what was seen;
    # the repair that names it waits for approval.
    expect(panel.get_by_test_id("geoagent-approval-code")).to_contain_text(
        ".round().astype(int)", timeout=RUN_TIMEOUT_MS
    )
    expect(added).to_have_attribute("data-status", "unmet")
    expect(added.get_by_test_id("geoagent-requirement-label")).to_have_text("fails")
    expect(added.get_by_test_id("geoagent-requirement-when")).to_have_text("after step 1")
    expect(added.get_by_test_id("geoagent-requirement-observed")).to_contain_text("seen: `area_ha` dtype float64")
    for held in ("r1", "r2", "r4", "r5", "r6", "r7"):
        expect(requirement(panel, held)).to_have_attribute("data-status", "held")
    expect(panel.get_by_test_id("geoagent-contract-summary")).to_have_text("6/7 hold · as you reviewed it")
    shot(page, "panel-contract-unmet.png", panel.get_by_test_id("geoagent-contract"))
    panel.get_by_test_id("geoagent-approve").click()

    # The repair holds: every requirement of the edited contract holds at the final check.
    expect(run_view).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(panel.get_by_test_id("geoagent-run-status")).to_have_attribute("data-status", "succeeded")
    expect(panel.get_by_test_id("geoagent-run-message")).to_contain_text("1 step(s) done")
    expect(panel.get_by_test_id("geoagent-contract-summary")).to_have_text("7/7 hold · as you reviewed it")
    expect(shown).to_have_count(7)
    for req_id in ("r1", "r2", "r4", "r5", "r6", "r7", "u7"):
        expect(requirement(panel, req_id)).to_have_attribute("data-status", "held")
        expect(requirement(panel, req_id).get_by_test_id("geoagent-requirement-when")).to_have_text("final check")
    expect(panel.get_by_test_id("geoagent-requirement-observed")).to_have_count(0)
    expect(subtask_row(panel, 0).get_by_test_id("geoagent-subtask-attempts")).to_have_text("2 attempts")
    shot(page, "panel-contract-checked.png", panel.get_by_test_id("geoagent-contract"))

    # The server checked the edited contract: r3 deleted (never checked, and the file is not
    # sorted by `parcel`), u7 added and checked (failed after attempt 1, held at the end).
    run_id = next(r["run_id"] for r in api(server, "GET", "geoagent/runs")["runs"] if r["request"] == CONTRACT_REQUEST)
    state = api(server, "GET", f"geoagent/runs/{run_id}")
    assert state["status"] == "succeeded", state["message"]
    reqs = {r["id"]: r for r in state["contract"]["requirements"]}
    assert list(reqs) == ["r1", "r2", "r4", "r5", "r6", "r7", "u7"], list(reqs)
    assert (
        reqs["u7"]["kind"] == "integer"
        and reqs["u7"]["origin"] == "user"
        and reqs["u7"]["params"] == {"name": "area_ha"}
    )
    assert reqs["r5"]["kind"] == "measure_units"  # integer hectares still are the parcels' areas, rounded
    assert set(state["requirements"]) == {"r1", "r2", "r4", "r5", "r6", "r7", "u7"}, state["requirements"]
    assert all(check["passed"] for check in state["requirements"].values()), state["requirements"]
    assert state["unmet"] == [] and state["not_verified"] == []
    events = api(server, "GET", f"geoagent/runs/{run_id}/events")["events"]
    stated = [e for e in events if e["type"] == "contract_stated"]
    assert [e["awaiting_review"] for e in stated] == [True, False] and stated[-1]["by"] == "user"
    assert "r3" in {r["id"] for r in stated[0]["contract"]["requirements"]}
    checks = [(e["requirement_id"], e["passed"]) for e in events if e["type"] == "requirement_checked"]
    assert "r3" not in {rid for rid, _ in checks}
    assert [passed for rid, passed in checks if rid == "u7"] == [False, True, True], (
        checks
    )  # attempt 1, attempt 2, final
    written = (server.root_dir / "parcels.csv").read_text().split()
    assert written == ["parcel,area_ha", "C,1", "A,2", "B,3"], written
    own_errors = [e for e in lab_page.console_errors if "geoagent" in e.lower()]
    assert not own_errors, own_errors
