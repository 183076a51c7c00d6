"""A run records what it did to the kernel's variables, so it can be undone (issue 20)."""

from __future__ import annotations

from types import SimpleNamespace

from geoagent_ext.agent.state import add_namespace_change, fold
from geoagent_ext.llm.scripted import ScriptedChatModel

from .helpers import StepScript, make_run, real_kernel


def _change(created=(), changed=(), deleted=(), fingerprints=None):
    return SimpleNamespace(
        created=list(created),
        changed=list(changed),
        deleted=list(deleted),
        fingerprints=fingerprints or {n: "f" for n in [*created, *changed]},
    )


def test_the_fold_tells_created_from_changed_and_deleted():
    variables = {"created": {}, "changed": [], "deleted": []}
    add_namespace_change(
        variables,
        _change(
            created=["a", "b"],
            changed=["user"],
            deleted=["gone", "back"],
            fingerprints={"a": "a1", "b": "b1", "user": "u1"},
        ),
    )
    add_namespace_change(
        variables, _change(created=["back"], changed=["a"], deleted=["b"], fingerprints={"a": "a2", "back": "k"})
    )
    # A variable the run made and changed again is still its own, with its latest fingerprint;
    # one it made and deleted is gone; a user's variable deleted and set again lost its old value.
    assert variables == {"created": {"a": "a2"}, "changed": ["user", "back"], "deleted": ["gone"]}


async def test_a_run_records_its_variables_and_deletes_only_those_still_as_it_left_them(tmp_path):
    script = StepScript(
        ["Make the table.", "Extend the table."],
        {
            "Make the table": [
                "import pandas as pd\nmade = pd.DataFrame({'a': [1, 2]})\nuser_value = 42\ndel doomed\nprint(len(made))"
            ],
            "Extend the table": ["made['b'] = made.a * 2\nextra = 3\nlater = 4\nprint(extra)"],
        },
    )
    async with real_kernel(tmp_path) as kernel:
        await kernel.execute("user_value = 41\ndoomed = 1\nkept_as_is = 'mine'")
        run = make_run("make a table", kernel, ScriptedChatModel(responder=script), tmp_path)
        finished = await run.wait()
        assert finished.status == "succeeded", finished.message
        changes = [e for e in run.bus.history if e.type == "namespace_changed"]
        assert [(e.created, e.changed, e.deleted) for e in changes] == [
            (["made"], ["user_value"], ["doomed"]),  # `pd` is a module: no variable to undo
            (["extra", "later"], ["made"], []),  # `made` changed in place
        ]
        variables = fold(run.bus.history)["variables"]
        assert sorted(variables["created"]) == ["extra", "later", "made"]
        assert variables["changed"] == ["user_value"] and variables["deleted"] == ["doomed"]

        await kernel.execute("later = 'the user set it again'")
        answer = await kernel.service.delete_variables(kernel.kernel_id, variables["created"])
        assert answer == {"deleted": ["extra", "made"], "kept": {"later": "changed since the run set it"}}
        left = await kernel.execute(
            "print(sorted(n for n in ('made', 'extra', 'later', 'user_value', 'kept_as_is') if n in globals()))"
        )
        assert left.stdout.strip() == "['kept_as_is', 'later', 'user_value']"
