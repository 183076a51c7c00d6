"""Events are redacted value by value, before they are serialised: whatever text a run
carries (quotes, backslashes, newlines, unicode next to secrets), every event stays valid
JSON of its own type, in the bus and in the run log, and no secret survives."""

from __future__ import annotations

import string
import tempfile

from hypothesis import given, settings
from hypothesis import strategies as st

from geoagent_ext.agent.events import CodeProposed, Executed, ExecutionSummary, NeedsHuman, Progress, parse_event
from geoagent_ext.agent.run import Run
from geoagent_ext.redact import REDACTED

from .helpers import StepScript, run_scripted

# Where keys appear in code and output: key shapes, key=value in a query string and in a
# JSON-ish literal, an HTTP header.
SECRET_SHAPES = [
    "sk-{}",
    "sk-ant-{}",
    "?access_token=pk.{}&z=1",
    "access_token={}",
    "Authorization: Bearer {}",
    '"api_key": "{}"',
    "password='{}'",
]
# A value that is part of a shape's own words ("Authorizatio") is kept with the label, not leaked.
SECRET_VALUE = st.text(alphabet=string.ascii_letters + string.digits, min_size=12, max_size=24).filter(
    lambda value: not any(value in shape for shape in SECRET_SHAPES)
)
# What breaks JSON text when a rule takes in a piece of it: quotes, backslashes, escapes.
NOISE = st.one_of(
    st.sampled_from(['"', "\\", '\\"', '"\\', "\n", "\r\n", "'", "\t", "{", "}", ",", ":", "é", "🗺️", "\u2028", "\x00"]),
    st.text(max_size=6),
)


@st.composite
def text_with_secrets(draw) -> tuple[str, list[str]]:
    """(text, the secret values in it): noise and secrets in any order, each secret after a
    space (a key glued to the word before it is no key shape: ``ask-...``)."""
    parts, secrets = [], []
    for _ in range(draw(st.integers(1, 10))):
        if draw(st.booleans()):
            value = draw(SECRET_VALUE)
            secrets.append(value)
            parts.append(" " + draw(st.sampled_from(SECRET_SHAPES)).format(value))
        else:
            parts.append(draw(NOISE))
    return "".join(parts), secrets


def events_carrying(text: str, field_value: str) -> list:
    """One event of each kind that carries code or output, ``text`` in every text field, and a
    display output whose JSON has a secret-named key with ``field_value``."""
    display = {
        "output_type": "display_data",
        "metadata": {},
        "data": {"application/json": {"api_key": field_value, "rows": [text]}, "text/plain": text},
    }
    result = ExecutionSummary(
        status="error",
        stdout=text,
        stderr=text,
        error=text,
        outputs=[{"output_type": "stream", "name": "stdout", "text": text}, display],
    )
    return [
        CodeProposed(run_id="r", subtask_id="s1", attempt=1, code=text),
        Executed(run_id="r", subtask_id="s1", attempt=1, code=text, result=result),
        NeedsHuman(run_id="r", subtask_id="s1", code=text, error=text, attempts=1),
        Progress(run_id="r", message=text),
    ]


@settings(max_examples=300, deadline=None, database=None)
@given(mixed=text_with_secrets(), field_value=st.text(min_size=6, max_size=20))
def test_every_event_stays_valid_json_of_its_type_and_no_secret_survives(mixed, field_value):
    text, secrets = mixed
    with tempfile.TemporaryDirectory() as log_dir:
        run = Run("redact me", kernel=None, llm=object(), model_name="scripted:test", log_dir=log_dir)
        for event in events_carrying(text, field_value):
            run.emit(event)  # raised ValidationError ("Invalid JSON") when a rule ate a backslash
        run.log.close()
        lines = run.log.path.read_text(encoding="utf-8").rstrip("\n").split("\n")  # JSON lines: \n only
    published = [e.model_dump_json() for e in run.bus.history]
    assert len(lines) == len(published) == 4
    for line in lines + published:
        event = parse_event(line)  # valid JSON, and valid as its own event type
        assert type(event).__name__ in {"CodeProposed", "Executed", "NeedsHuman", "Progress"}
        leaked = [s for s in secrets if s in line]
        assert not leaked, (leaked, line)
    executed = parse_event(lines[1])
    assert executed.result.outputs[1]["data"]["application/json"]["api_key"] == REDACTED


TILES = 'tiles = "https://tiles.example/{z}/{x}/{y}.png?access_token=pk.abcdef123456"\nprint(tiles)'


async def test_a_run_whose_code_holds_a_token_url_succeeds_with_the_token_redacted(tmp_path):
    """A basemap URL with its access token in the model's code: the run goes on (the code is
    redacted in events, not broken) and the token is in no event and no line of the run log."""
    workdir = tmp_path / "work"
    workdir.mkdir()
    script = StepScript(["Print the basemap's tile URL."], {"tile URL": [TILES]})
    run, finished, _ = await run_scripted(workdir, "Print the basemap's tile URL", script, tmp_path)
    assert finished.status == "succeeded", finished.message
    proposed = [e for e in run.bus.history if e.type == "code_proposed"]
    assert proposed and proposed[0].code.startswith(
        'tiles = "https://tiles.example/{z}/{x}/{y}.png?access_token=[REDACTED]"'
    )
    solved = [e for e in run.bus.history if e.type == "solved"]
    assert solved and "access_token=[REDACTED]" in solved[0].result.stdout
    log_lines = run.log.path.read_text(encoding="utf-8").rstrip("\n").split("\n")  # JSON lines: \n only
    assert [parse_event(line).type for line in log_lines] == [e.type for e in run.bus.history]
    assert all("abcdef123456" not in line for line in log_lines)
