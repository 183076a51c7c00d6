"""Plan a request into subtasks, and review the plan as results come in.

The plan says *what* to do, never parameter values: small models that fix a
CRS or a column name up front (before seeing the data) fail downstream, so
binding happens in the coder prompt, which sees the data profile and the live
variables.
"""

from __future__ import annotations

import ast
import re
import uuid
from dataclasses import dataclass

from ..contract.proposed import parse_proposals
from ..contract.reading import RequestReading, parse_reading, reading_schema
from ..llm.client import Generation, json_schema_kwargs
from .events import SubtaskSpec
from .prompts import (
    PLANNER_SYSTEM,
    planner_messages,
    proposer_messages,
    reader_messages,
    reviewer_messages,
    rewriter_messages,
)

_NUMBERED_RE = re.compile(r"^\s*(?:step\s*)?(\d+)\s*[.):\-]\s+(.+?)\s*$", re.IGNORECASE)
_DECLINE_RE = re.compile(r"^\s*DECLINE\s*:\s*(.+)$", re.IGNORECASE | re.MULTILINE)
_FILE_RE = re.compile(
    r"[`'\"]?([\w\-./]+\.(?:geojson|gpkg|shp|parquet|geoparquet|csv|json|kml|tif|tiff|png|html|nc|fgb|txt))[`'\"]?",
    re.IGNORECASE,
)

MAX_SUBTASKS = 10


class PlanError(Exception):
    """The model's answer held neither subtasks nor a decline."""


@dataclass
class PlanResult:
    subtasks: list[SubtaskSpec]
    declined: str | None = None


def new_subtask(description: str, inserted_for: str | None = None) -> SubtaskSpec:
    artifacts = list(dict.fromkeys(m.group(1) for m in _FILE_RE.finditer(description)))
    return SubtaskSpec(id=uuid.uuid4().hex[:8], description=description, artifacts=artifacts, inserted_for=inserted_for)


def _bigrams(text: str) -> set[tuple[str, str]]:
    words = re.sub(r"[^\w\s]", " ", text.lower()).split()
    return set(zip(words, words[1:]))


_RULE_BIGRAMS = _bigrams(PLANNER_SYSTEM)


def _echoes_a_rule(description: str) -> bool:
    """Small models sometimes answer with the prompt's own rules as 'steps' (most word pairs shared)."""
    pairs = _bigrams(description)
    return len(pairs) >= 2 and len(pairs & _RULE_BIGRAMS) / len(pairs) >= 0.6


def parse_subtasks(text: str) -> list[str]:
    """Numbered lines in order; tolerant of markdown bold, bullets, code blocks and echoed rules."""
    descriptions: list[str] = []
    in_fence = False
    for raw in text.splitlines():
        if raw.strip().startswith(("```", "~~~")):
            in_fence = not in_fence
            continue
        if in_fence:
            continue  # code under a numbered line is the model coding early, not a subtask
        line = raw.replace("**", "").strip()
        match = _NUMBERED_RE.match(line)
        if match:
            description = match.group(2).strip().rstrip(":").strip()
            if description and description not in descriptions and not _echoes_a_rule(description):
                descriptions.append(description)
    return descriptions[:MAX_SUBTASKS]


def parse_plan(text: str) -> PlanResult:
    descriptions = parse_subtasks(text)
    decline = _DECLINE_RE.search(text)
    if decline and not descriptions:
        return PlanResult(subtasks=[], declined=decline.group(1).strip())
    if not descriptions:
        raise PlanError(f"the model's plan had no numbered steps: {text.strip()[:200]!r}")
    return PlanResult(subtasks=[new_subtask(description) for description in descriptions])


class Planner:
    def __init__(self, llm, max_tries: int = 2):
        self.llm = llm
        self.max_tries = max_tries

    async def plan(self, request: str, data_overview: str, intros: str, contract: str = "") -> PlanResult:
        messages = planner_messages(request, data_overview, intros, contract)
        last_error: PlanError | None = None
        for _ in range(self.max_tries):
            generation = await self.llm.complete(
                messages, temperature=0.1, max_tokens=640
            )  # room for models that code under each step
            try:
                return parse_plan(generation.text)
            except PlanError as exc:
                last_error = exc
        assert last_error is not None
        raise last_error

    async def propose_requirements(self, request: str, outputs: list[str]) -> list[tuple[str, str]]:
        """(output, sentence) the model reads in the request (unchecked: ``contract.proposed.accept_proposals``
        keeps what the rules can check and the request backs, beyond what the rules derived)."""
        generation = await self.llm.complete(proposer_messages(request, outputs), temperature=0.0, max_tokens=200)
        return parse_proposals(generation.text, outputs)

    async def read_request(self, request: str, outputs: list[str]) -> RequestReading | None:
        """The model's typed reading of the request (``contract.reading``), generated under the
        reading's JSON schema where the model supports one; None when the answer does not parse.
        Unchecked: ``contract.reading.accept_reading`` keeps what the request writes."""
        return parse_reading((await self.reading_answer(request, outputs)).text)

    async def reading_answer(self, request: str, outputs: list[str]) -> Generation:
        """The model's answer to the reading's form, as it came (``read_request`` parses it)."""
        extra = json_schema_kwargs(self.llm.chat_model, reading_schema(), "request_reading")
        return await self.llm.complete(
            reader_messages(request, outputs), temperature=0.0, max_tokens=120 + 160 * len(outputs), **extra
        )

    async def review(self, request: str, done: list[tuple[str, str]], remaining: list[str]) -> list[str] | None:
        """New remaining subtasks when the reviewer says the plan no longer fits, else None."""
        if not remaining:
            return None
        generation = await self.llm.complete(
            reviewer_messages(request, done, remaining), temperature=0.0, max_tokens=300
        )
        text = generation.text.strip()
        if re.match(r"^\W*OK\b", text, re.IGNORECASE):
            return None
        descriptions = parse_subtasks(text)
        if not descriptions or descriptions == remaining:
            return None
        return descriptions

    async def rewrite(self, request: str, data_overview: str, plan: list[str], index: int, error: str) -> str | None:
        """A new wording for subtask ``index`` that keeps failing the same way, or None."""
        generation = await self.llm.complete(
            rewriter_messages(request, data_overview, plan, index, error), temperature=0.3, max_tokens=120
        )
        lines = [line for line in (raw.replace("**", "").strip() for raw in generation.text.splitlines()) if line]
        lines = [line for line in lines if not line.startswith(("```", "#")) and not _is_code(line)]
        # a line ending in ':' ("Replace the current step 4 with the following:") introduces the step
        lines = [line for i, line in enumerate(lines) if not (line.endswith(":") and i + 1 < len(lines))]
        if not lines:
            return None
        match = _NUMBERED_RE.match(lines[0])
        description = (match.group(2) if match else lines[0]).strip()
        # Another step's words again is no new wording: it would drop the rewritten step from the
        # plan and leave a duplicate in its place.
        return description if description and description not in plan and len(description) < 400 else None


def _is_code(line: str) -> bool:
    """A line of Python (``stations = stations.to_frame()``, ``import x``), not a step in words: a
    small model asked for a step's new wording sometimes answers with the failing code itself."""
    if not any(mark in line for mark in ("=", "(", "import ")):
        return False
    try:
        ast.parse(line)
    except SyntaxError:
        return False
    return True
