"""A run as a reviewable change, in a real JupyterLab, kernel and Chromium (issue 20).

The user edits the notebook while a run writes into it; both their cells and the run's
survive a save and a reload. They review the run's cells (one edited by them is marked),
accept one and reject one; then undo the whole run from a command link (as the chat's
"Undo this run"): the notebook is back to their own cells in one step that Ctrl+Z
reverts, and the variables the run created are deleted from the kernel.
"""

from __future__ import annotations

import re

import pytest

from geoagent_ext.cli.editors import open_in

from .lab_driver import run_palette_command
from .test_run_panel import (
    PANEL,
    RUN_TIMEOUT_MS,
    SIDEBAR_TAB,
    USER_CELL,
    api,
    create_notebook,
    notebook,
    open_notebook,
    start_run,
)

pytestmark = pytest.mark.browser

NAME = "review.ipynb"
USER_NEW = "# the user's own new cell, added while the run works"


def saved_sources(server) -> list[str]:
    """The notebook's cells on disk; [] while a save is writing it. jupyter_server writes the
    file in place, keeping a backup, and a read that finds half a file answers 400 or, when it
    races the writer over the backup it restores, 500: callers wait for the save to end first
    (`wait_until_saved`) and treat either as "not yet"."""
    import urllib.error

    try:
        content = api(server, "GET", f"api/contents/{NAME}")["content"]
    except urllib.error.HTTPError as exc:
        if exc.code not in (400, 500):
            raise
        return []
    return [c["source"] for c in content["cells"]]


def wait_until_saved(page) -> None:
    """Until the notebook's tab is no longer dirty: JupyterLab clears `jp-mod-dirty` when the
    save's PUT has answered, so the file on disk is whole from then on."""
    from playwright.sync_api import expect

    expect(page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text=NAME)).not_to_have_class(
        re.compile(r"\bjp-mod-dirty\b"), timeout=30_000
    )


def click_command_link(page, command: str, args: dict) -> None:
    """What the chat's button is: an element JupyterLab's command linker runs on click (after
    the user confirms it, as for any command from a message)."""
    page.evaluate(
        """([command, args]) => {
        const button = document.createElement('button');
        button.dataset.commandlinkerCommand = command;
        button.dataset.commandlinkerArgs = JSON.stringify(args);
        document.body.appendChild(button);
        button.click();
        button.remove();
    }""",
        [command, args],
    )


def test_review_edit_while_writing_reject_and_undo(lab_page, monkeypatch):
    from playwright.sync_api import expect

    page, server = lab_page.page, lab_page.server
    create_notebook(server, NAME, [USER_CELL])
    open_notebook(page, server, NAME)
    page.locator(SIDEBAR_TAB).click()
    panel = page.locator(PANEL)
    start_run(page, "undo demo: a lookup table and its total")
    run_view = panel.get_by_test_id("geoagent-run-view")
    cells = notebook(page).locator(".jp-Cell")

    # While the run writes (step 1 is in, step 2 sleeps in the kernel) the user edits their
    # cell and adds one of their own.
    expect(cells.filter(has_text="GeoAgent step 1")).to_have_count(1, timeout=RUN_TIMEOUT_MS)
    expect(run_view).to_have_attribute("data-status", "running")
    cells.nth(0).locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nuser_extra = 1")
    page.keyboard.press("Escape")
    page.keyboard.press("a")  # a new cell above, as a user does in command mode
    page.keyboard.press("Enter")
    page.keyboard.type(USER_NEW)
    page.keyboard.press("Escape")
    expect(run_view).to_have_attribute("data-status", "succeeded", timeout=RUN_TIMEOUT_MS)
    expect(cells).to_have_count(6)
    expect(cells.nth(0)).to_contain_text(USER_NEW)
    expect(cells.nth(1)).to_contain_text("user_extra = 1")
    expect(cells.nth(5)).to_contain_text("undo_total")

    # The review: four cells; the one the user edits is marked.
    changes = panel.get_by_test_id("geoagent-change")
    expect(changes).to_have_count(4)
    cells.nth(3).locator(".cm-content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n# checked by me")
    page.keyboard.press("Escape")
    expect(changes.nth(1)).to_have_attribute("data-edited", "true")
    expect(changes.nth(1).get_by_test_id("geoagent-change-edited")).to_be_visible()
    expect(panel.locator("[data-testid='geoagent-change'][data-edited='true']")).to_have_count(1)
    changes.nth(0).get_by_test_id("geoagent-change-accept").click()
    expect(changes.nth(0)).to_have_attribute("data-accepted", "true")
    changes.nth(2).get_by_test_id("geoagent-change-reject").click()  # step 2's heading
    expect(changes).to_have_count(3)
    expect(cells.filter(has_text="GeoAgent step 2")).to_have_count(0)
    expect(cells).to_have_count(5)
    expect(panel.get_by_test_id("geoagent-vars-created")).to_contain_text("undo_table, undo_total")

    # Save and reload: the user's cells and the run's are all there, on disk and in the page.
    page.locator(".lm-MenuBar-item", has_text="File").click()
    page.locator(".lm-Menu-item", has_text="Save Notebook").first.click()
    wait_until_saved(page)
    expected = [USER_NEW, "user_extra = 1", "GeoAgent step 1", "# checked by me", "undo_total"]
    deadline_sources = []
    for _ in range(60):
        deadline_sources = saved_sources(server)
        if len(deadline_sources) == 5 and all(e in s for e, s in zip(expected, deadline_sources)):
            break
        page.wait_for_timeout(500)
    assert len(deadline_sources) == 5 and all(e in s for e, s in zip(expected, deadline_sources)), deadline_sources
    assert USER_CELL in deadline_sources[1]  # the user's own text, untouched by the run
    run_id = run_view.get_attribute("data-run-id")
    page.reload()
    page.wait_for_selector("#jupyterlab-splash-screen", state="detached", timeout=90_000)
    expect(cells).to_have_count(5, timeout=60_000)
    for i, text in enumerate(expected):
        expect(cells.nth(i)).to_contain_text(text)

    # The CLI sees that an editor has the notebook open, and would not write it.
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", server.env["JUPYTER_RUNTIME_DIR"])
    assert open_in(server.root_dir / NAME) == server.url

    # Undo the run from a command link, as the chat offers it: the notebook holds the user's
    # cells only, in one step that "Undo Cell Operation" reverts at once.
    click_command_link(page, "geoagent:undo-run", {"run_id": run_id})
    page.locator(".jp-Dialog .jp-mod-accept", has_text="Run").click()  # Lab asks, as for any command link
    expect(cells).to_have_count(2)
    expect(cells.nth(0)).to_contain_text(USER_NEW)
    expect(cells.nth(1)).to_contain_text("user_extra = 1")
    expect(panel.get_by_test_id("geoagent-changes-empty")).to_contain_text("Rejected: 3 cells")
    cells.nth(0).click()
    run_palette_command(page, "Undo Cell Operation")
    expect(cells).to_have_count(5)
    expect(changes).to_have_count(3)
    panel.get_by_test_id("geoagent-reject-all").click()  # the panel's own Reject all
    expect(cells).to_have_count(2)

    # The variables the run created: deleted in the kernel for real.
    panel.get_by_test_id("geoagent-delete-variables").click()
    expect(panel.get_by_test_id("geoagent-vars-result")).to_contain_text(
        "Deleted from the kernel: undo_table, undo_total"
    )
    again = api(server, "POST", f"geoagent/runs/{run_id}/variables/delete", {})
    assert again["deleted"] == [] and again["kept"] == {
        "undo_table": "not in the kernel anymore",
        "undo_total": "not in the kernel anymore",
    }
