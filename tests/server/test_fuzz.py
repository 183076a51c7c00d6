"""Schemathesis against the live OpenAPI document: no request, valid or not, may get a 5xx.

A real jupyter_server runs in a subprocess (schemathesis' HTTP calls are blocking,
so it cannot share pytest-jupyter's loop) with only geoagent_ext loaded and a
scripted model. It holds a live run stuck on a real kernel, and half of the
generated cases aim at that run and kernel, so the fuzzer reaches the code
behind the 404s (actions on a waiting run, starting runs on a busy kernel).
"""

from __future__ import annotations

import json
import random
import textwrap
import time
from pathlib import Path

import hypothesis
import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given
from schemathesis import GenerationMode

from tests.scripted_server import server_process

MAX_EXAMPLES = 50  # per operation and generation mode

SCRIPT = textwrap.dedent("""
    def reply(messages):
        if "plans Python analyses" in messages[0].text:
            return "1. Fail on purpose."
        return "```python\\nraise ValueError('stuck on purpose')\\n```"
""")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base_url, auth headers, live ids, log path) of a fresh server; stopped after the module."""
    tmp = tmp_path_factory.mktemp("fuzz")
    (tmp / "script.py").write_text(SCRIPT)
    config = {
        "ServerApp": {"jpserver_extensions": {"geoagent_ext": True}},
        "GeoAgentSettings": {
            "model": f"scripted:{tmp / 'script.py'}",
            "max_attempts": 1,
            "inline_model": f"scripted:{tmp / 'script.py'}",
        },
    }
    with server_process(tmp, config) as (base, auth, log_path, _pid):
        busy, free = (
            requests.post(f"{base}/api/kernels", headers=auth, json={"name": "python3"}, timeout=60).json()["id"]
            for _ in range(2)
        )
        run = requests.post(
            f"{base}/geoagent/runs", headers=auth, json={"request": "fuzz me", "kernel_id": busy}, timeout=60
        )
        assert run.status_code == 201, run.text
        run_id = run.json()["run_id"]
        for _ in range(300):  # until it waits for a human: actions are then accepted
            state = requests.get(f"{base}/geoagent/runs/{run_id}", headers=auth, timeout=10).json()
            if state["status"] != "running":
                break
            time.sleep(0.2)
        assert state["status"] == "needs_human", state
        live = {"run_id": run_id, "kernel_id": free, "subtask_id": state["waiting_for"]["subtask_id"]}
        yield base, auth, live, log_path


def _aim(case, live, rnd: random.Random):
    """Half the time, point the case at the live run, its stuck step or a free kernel instead
    of ids that do not exist."""
    if rnd.random() < 0.5:
        if case.path_parameters and "run_id" in case.path_parameters:
            case.path_parameters["run_id"] = live["run_id"]
        if isinstance(case.body, dict):
            for field in ("kernel_id", "subtask_id"):
                if field in case.body:
                    case.body[field] = live[field]
            if "kernel_id" in case.body:
                case.body.pop("model", None)  # the configured model, so a run really starts
    return case


def _fuzz(schema, server_info, label):
    base, auth, live, log_path = server_info
    failures: list[str] = []
    counts: dict[str, int] = {}
    statuses: dict[int, int] = {}

    def fuzz_one(operation, mode):
        key, rnd = f"{operation.label} [{mode.value}]", random.Random(f"{operation.label}{mode}")

        @hypothesis.settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            phases=[hypothesis.Phase.generate],
        )
        @given(case=operation.as_strategy(generation_mode=mode))
        def check(case):
            counts[key] = counts.get(key, 0) + 1
            _aim(case, live, rnd)
            response = case.call(base_url=base, headers=dict(auth), timeout=30)
            statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
            if response.status_code >= 500:
                failures.append(f"{key}: {response.status_code} for {case.as_curl_command()}\n{response.text[:300]}")

        try:
            check()
        except hypothesis.errors.Unsatisfiable:
            pass  # nothing left to generate for this operation and mode

    # Negative cases would otherwise mostly drop the token (403, already tested in test_runs.py)
    # instead of breaking bodies and parameters.
    schema.config.generation.update(with_security_parameters=False)
    for result in schema.get_all_operations():
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            fuzz_one(result.ok(), mode)
    server_log = Path(log_path).read_text()
    assert not failures, (
        f"{label}: server errors\n" + "\n".join(failures[:10]) + f"\n--- server log tail ---\n{server_log[-4000:]}"
    )
    assert "Traceback" not in server_log, server_log[-4000:]
    print(label, "responses by status:", dict(sorted(statuses.items())))
    return counts


def test_fuzz_the_live_openapi_document_finds_no_5xx(server):
    base, auth = server[0], server[1]
    schema = schemathesis.openapi.from_url(f"{base}/geoagent/openapi.json", headers=dict(auth))
    counts = _fuzz(schema, server, "openapi.json")
    documented = {result.ok().label for result in schema.get_all_operations()}
    assert {k.split(" [")[0] for k in counts} == documented, counts  # all exercised
    for operation in ("POST /geoagent/runs", "POST /geoagent/active-notebook", "POST /geoagent/complete"):
        assert operation in documented, documented
    assert sum(counts.values()) >= 300, counts
    print("fuzzed:", json.dumps(counts, indent=1))


@pytest.mark.parametrize(
    "path,body",
    [
        ("runs", '{"request": "map \\ud800 it", "kernel_id": "%(kernel_id)s"}'),
        ("runs/%(run_id)s/actions", '{"kind": "hint", "subtask_id": "%(subtask_id)s", "text": "\\udfff"}'),
        ("active-notebook", '{"path": "nb\\ud800.ipynb"}'),
    ],
)
def test_lone_surrogates_are_refused_with_400(server, path, body):
    """Valid JSON that is no UTF-8 string, which hypothesis never generates: it would break the
    run log and the kernel protocol if it got past validation."""
    base, auth, live, _ = server
    response = requests.post(f"{base}/geoagent/{path % live}", headers=auth, data=body % live, timeout=30)
    assert response.status_code == 400, response.text
    assert "unicode" in response.json()["message"].lower()


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


def _json_bodies(base, auth):
    """(operation label, path) of every documented operation with a JSON body."""
    doc = requests.get(f"{base}/geoagent/openapi.json", headers=auth, timeout=30).json()
    return [
        (f"{method.upper()} {path}", path)
        for path, ops in doc["paths"].items()
        for method, op in ops.items()
        if "requestBody" in op
    ]


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000,  # past the decoder's recursion limit
        '{"request": ' + _deep(5000) + "}",  # the same, inside a field
        '{"request": ' + _deep(900) + ', "path": ' + _deep(900) + "}",  # deep but decodable
    ],
    ids=["top-level", "in-a-field", "decodable"],
)
def test_deeply_nested_json_is_a_clear_400_on_every_body(server, body):
    """Deep nesting is an input hypothesis does not generate: RecursionError escaped the
    body parsers as a 500 (issue 18, item 6)."""
    base, auth, live, log_path = server
    operations = _json_bodies(base, auth)
    assert len(operations) >= 4, operations  # runs, actions, active-notebook, complete
    for label, path in operations:
        url = base + path.replace("{run_id}", live["run_id"])
        response = requests.post(url, headers=auth, data=body, timeout=30)
        assert response.status_code == 400, f"{label}: {response.status_code} {response.text[:300]}"
        message = response.json()["message"]
        assert "too deeply" in message or "invalid request" in message, f"{label}: {message}"
    assert "RecursionError" not in Path(log_path).read_text()


SECRET = "sk-proj-" + "Zq9" * 12  # shaped like an OpenAI key


@pytest.mark.parametrize("seed", range(3))
def test_quotes_backslashes_and_secrets_keep_every_event_valid_and_redacted(server, seed):
    """Text mixing quotes, backslashes, control characters and secrets, sent as a run's request and
    as a hint to it when it waits: no 5xx, and every event the run log gives back is JSON whose
    strings hold no secret (redaction works on values, never on the serialised text)."""
    base, auth, _, _ = server
    rnd = random.Random(seed)
    pieces = [
        '"',
        "\\",
        '\\"',
        "'",
        "\n",
        "\t",
        "\u2028",
        "é",
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        f"api_key={SECRET}",
        f'"api_key": "{SECRET}"',
        f"Bearer {SECRET}",
        f"https://tiles.example/{{z}}.png?access_token={SECRET}",
    ]

    def mixed() -> str:
        return "".join(rnd.choice(pieces) for _ in range(rnd.randint(5, 40))) + f" token={SECRET}"

    kernel = requests.post(f"{base}/api/kernels", headers=auth, json={"name": "python3"}, timeout=60).json()["id"]
    started = requests.post(
        f"{base}/geoagent/runs", headers=auth, timeout=30, json={"request": mixed(), "kernel_id": kernel}
    )
    assert started.status_code == 201, started.text
    run_id = started.json()["run_id"]
    for _ in range(300):
        state = requests.get(f"{base}/geoagent/runs/{run_id}", headers=auth, timeout=10).json()
        if state["status"] != "running":
            break
        time.sleep(0.2)
    if state["status"] == "needs_human":
        hint = requests.post(
            f"{base}/geoagent/runs/{run_id}/actions",
            headers=auth,
            timeout=30,
            json={"kind": "hint", "subtask_id": state["waiting_for"]["subtask_id"], "text": mixed()},
        )
        assert hint.status_code < 500, hint.text
        time.sleep(1.0)
    events = requests.get(f"{base}/geoagent/runs/{run_id}/events", headers=auth, timeout=30)
    requests.post(f"{base}/geoagent/runs/{run_id}/cancel", headers=auth, timeout=30)
    assert events.status_code == 200, events.text
    body = events.json()  # valid JSON as a whole ...
    assert body["events"] and all(isinstance(e, dict) and e.get("type") for e in body["events"])
    assert "[REDACTED]" in events.text  # the texts reached the events (the request at least) ...
    assert SECRET not in events.text and SECRET[8:] not in events.text  # ... with no secret in any value
