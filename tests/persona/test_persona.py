"""GeoAgent in a Jupyter AI chat, end to end: chat WebSocket -> router -> persona manager ->
our persona -> RunManager -> a real kernel (scripted model)."""

from __future__ import annotations

import json

import pytest

from .helpers import PERSONA_ID, until


def _manager(jp_serverapp):
    return jp_serverapp.web_app.settings["geoagent"].run_manager


async def test_message_runs_in_the_active_notebook_and_a_hint_unsticks_it(chat, notebook, jp_fetch, jp_serverapp):
    await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": notebook}))
    chat.send("@GeoAgent make forty-two")

    stuck = await chat.wait_reply("needs you")
    first = chat.replies()[0]
    assert "work/nb.ipynb" in first and "**Plan**" in first
    assert "1. Set x to forty." in first and "2. Print x plus two." in first
    assert "✓ **1.** Set x to forty. (1 attempt)" in first
    assert "**2.** Print x plus two." in stuck and "always fails" in stuck
    assert 'data-commandlinker-command="geoagent:open-panel"' in stuck  # the button that opens the panel
    [run] = _manager(jp_serverapp).runs.values()
    assert run.notebook == notebook and run.request == "make forty-two"
    assert run.waiting_for == {"kind": "stuck", "subtask_id": run.subtasks[1].id}

    chat.send("@GeoAgent print x + 2 instead")  # a reply while stuck is a hint for the stuck step
    summary = await chat.wait_reply("Done")
    assert "2/2 steps" in summary and "LLM calls" in summary and " s" in summary
    assert any("again with your hint" in r and "✓ **2.**" in r for r in chat.replies())
    assert run.done and run.hints[run.subtasks[1].id] == ["print x + 2 instead"]
    solved = [e for e in run.bus.history if e.type == "solved"]
    assert solved[-1].result.stdout.strip() == "42"  # it really ran in the notebook's kernel
    # the turn ends with the run (Jupyter AI clears `processing` just after the handler returns,
    # so the summary reply can land a moment before it)
    await until(lambda: not chat.persona.processing, 10, "the turn to end")


async def test_cancel_typed_while_the_run_works_stops_it_at_once(chat, notebook, jp_fetch, jp_serverapp):
    """Messages are processed one at a time; "cancel" must not wait for the run it stops."""
    await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": notebook}))
    chat.send("@GeoAgent slowly make forty-two")
    run = await until(lambda: next(iter(_manager(jp_serverapp).runs.values()), None), what="the run")
    await until(lambda: chat.persona.processing, what="the turn")
    chat.send("@GeoAgent cancel")
    summary = await chat.wait_reply("Cancelled", timeout=30)  # planning alone would take 60 s
    assert run.bus.history[-1].status == "cancelled" and "0/0 steps" in summary
    await until(lambda: not chat.persona.processing, 10, "the turn to end")


@pytest.mark.parametrize("approval_mode", [True], indirect=True)
async def test_in_approval_mode_the_chat_shows_the_code_and_replies_decide(chat, notebook, jp_fetch, jp_serverapp):
    await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": notebook}))
    chat.send("@GeoAgent make forty-two")
    ask = await chat.wait_reply("waits for your approval")
    assert "**1.** Set x to forty." in ask and "```python\nx = 40\n```" in ask
    chat.send("no, call it forty")  # anything but a yes rejects; the words are the feedback
    await chat.wait_reply("needs you")  # a rejection uses an attempt, and this server allows one
    chat.send("try once more")  # a hint: the step is proposed again
    await until(lambda: sum("waits for your approval" in r for r in chat.replies()) == 2, what="a new proposal")
    chat.send("yes")
    await until(lambda: sum("needs you" in r for r in chat.replies()) == 2, what="step 2")  # it fails its trial
    [run] = _manager(jp_serverapp).runs.values()
    given = [e for e in run.bus.history if e.type == "approval_given"]
    assert [(e.approved, e.feedback) for e in given] == [(False, "call it forty"), (True, "")]
    assert any("Rejected: **1.**" in r for r in chat.replies()) and any("Approved: **1.**" in r for r in chat.replies())


async def test_without_a_notebook_the_reply_says_to_open_one(chat, jp_serverapp):
    chat.send("@GeoAgent map the parcels")
    reply = await chat.wait_reply("notebook")
    assert "open the notebook" in reply.lower()
    assert not _manager(jp_serverapp).runs  # nothing was started


async def test_attached_notebook_skip_then_a_follow_up_carries_the_context(chat, notebook, jp_serverapp):
    attachment = {"type": "notebook", "value": notebook}
    chat.send("@GeoAgent make forty-two", attachments=[attachment])
    await chat.wait_reply("needs you")
    chat.send("skip")
    await chat.wait_reply("Partly done")
    first_run = next(iter(_manager(jp_serverapp).runs.values()))
    assert first_run.bus.history[-1].status == "partial"

    chat.send("@GeoAgent now double it")  # the run finished: a new run, with the old one as context
    await until(lambda: len(_manager(jp_serverapp).runs) == 2, what="a second run")
    second = [r for r in _manager(jp_serverapp).runs.values() if r is not first_run][0]
    assert second.request.startswith("now double it")
    assert "make forty-two" in second.request and "x = 40" in second.request
    await until(lambda: sum("needs you" in r for r in chat.replies()) == 2, what="the second run to get stuck")
    chat.send("cancel")
    await until(lambda: second.done, what="the cancel")
    assert second.bus.history[-1].status == "cancelled"
    assert any("Cancelled" in r for r in chat.replies())


async def test_a_bad_active_notebook_is_refused_clearly(jp_fetch):
    from tornado.httpclient import HTTPClientError

    for body, code, fragment in [
        ({"path": "../outside.ipynb"}, 400, b"not a path under"),
        ({"path": "data.csv"}, 400, b"not a notebook"),
        ({"path": "missing.ipynb"}, 404, b"no notebook"),
        ({"notebook": "x.ipynb"}, 400, b"path"),
    ]:
        with pytest.raises(HTTPClientError) as err:
            await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps(body))
        assert err.value.code == code and fragment in err.value.response.body
    cleared = await jp_fetch("geoagent", "active-notebook", method="POST", body=json.dumps({"path": None}))
    assert json.loads(cleared.body) == {"path": None}
    assert PERSONA_ID.endswith("GeoAgentPersona")
