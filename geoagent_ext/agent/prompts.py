"""Prompt texts and builders for the planner, the coder, the repairer and the reviewer.

Ordering rule: what stays the same during a run (system text, request, data
found at the start, plan) comes first and what changes per call (variables
now, retrieved docs, the failed attempt) comes last, so a local llama.cpp
model reuses its KV cache for the shared prefix instead of re-reading it.
Small models follow short, concrete rules better than long prose.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from ..contract.mend import without_mends

PLANNER_SYSTEM = """You are GeoAgent, a senior GIS analyst who plans Python analyses.
Split the user's request into 2 to 6 steps that a Python programmer will code one by one
in a Jupyter kernel that already holds the data listed below.
Rules:
- Each step says WHAT to do, in one sentence. Do not fix parameter values you have not
  seen in the data (CRS codes, column names, thresholds come later, after looking at the data).
- The first step loads or inspects the data the request needs.
- Keep every column and the geometry until the step that writes the output; add no step
  the request does not need, and no filter or threshold the user did not ask for.
- Name every file the request asks to write, in the step that writes it.
- Distances, buffers and areas need a projected (metric) CRS. Do not reproject for anything
  else (bounding boxes, counts, joins, format changes) unless the user names a CRS.
- Layers that share no column are related by location: a spatial join (sjoin) for
  containment, sjoin_nearest for the nearest feature. Merge on a column only when both
  layers have it.
- Every value the user asks for is computed in some step, and every requirement of the output
  files listed below is met by some step (a column the input lacks is computed, not selected).
- The last step produces what the user asked for (a file, a number, a table or a map).
  Make a map or a plot only when the user asks for one.
Answer with a numbered list only, one step per line:
1. <first step>
2. <next step>
If the data or tools available cannot answer the request, answer with one line:
DECLINE: <the reason>"""

CODER_SYSTEM = """You are GeoAgent, an expert geospatial Python programmer working in a live
Jupyter kernel. You write the code for ONE step of a plan at a time.
Rules:
- Answer with exactly one ```python code block and nothing else.
- The code of earlier steps has already run: its variables exist. Reuse them; do not reload data
  that is already loaded.
- Import every module you use at the top of the block, each on its own line
  (for example `import geopandas as gpd`). Everything needed is already installed.
- Check the CRS before measuring: reproject to a suitable projected CRS for lengths,
  areas and buffers; keep EPSG:4326 (lon, lat order) for output unless asked otherwise.
- Use only column names, layers and CRSs that appear in the data description or variables.
- Write files exactly where and how the request says (file name, format, keys, columns).
- In JSON output use plain Python numbers, lists and dicts; a value per group is a dict
  mapping each group to its value (for example `series.to_dict()`).
- End the block by printing a short summary of the result (shape, a few values; `.crs` of a GeoDataFrame only).
- Never ask for input, never install packages, never use network services."""

REVIEWER_SYSTEM = """You are GeoAgent, reviewing a geospatial analysis while it runs.
Given the request, the steps done with their printed results, and the remaining steps,
decide if the remaining steps still lead to what the user asked for.
Answer with the single word OK if they do.
Otherwise answer with a new numbered list of the remaining steps only (one per line)."""

REWRITER_SYSTEM = """You are GeoAgent, a senior GIS analyst. One step of a plan keeps failing
with the same error, so the way it is phrased leads the programmer into a dead end.
Rewrite that ONE step so it reaches the same result another way (for example a spatial
join instead of a merge on a column the data lacks, or computing a column instead of
selecting it). Answer with the new step only, one sentence, no code."""

PROPOSER_SYSTEM = """You are GeoAgent, a senior GIS analyst. Before any code is written, you list
what the output files must satisfy, as the user's request states it.
Write one line per requirement: the output file in backticks, a colon, one short sentence in
the form `file.ext`: <what the request says about it>.
Say only what the request says: columns and keys with their exact names in backticks, EPSG
codes, sorting, stored types, allowed values. Add no filter, column or value the request does
not state. If the request states nothing about its output files, answer NONE."""

READER_SYSTEM = """You read a geospatial data request and fill in, as JSON, what each output file
must hold. Copy names, codes and CRS words exactly as the request writes them. Use null or []
for anything the request does not say about that file; never guess.
- crs: the CRS the output must be in (not the CRS the data comes in).
- geometry_type: only when the request says which geometry type the output's features are.
- columns_kept: columns of an input the output keeps; columns_new: columns the output adds.
- one_row_per: the column whose values each appear once ("one row per district").
- sort_by / sort_order: only when the request says how rows are ordered.

Example request: Reproject `roads.shp` to EPSG:3857 and save it as `roads_3857.gpkg`, keeping
`road_id`. Also write `lengths.csv` with one row per `road_class` and its total `length_km`,
longest first.
Example answer: {"outputs": [{"path": "roads_3857.gpkg", "crs": "EPSG:3857", "geometry_type": null,
"columns_kept": ["road_id"], "columns_new": [], "one_row_per": null, "sort_by": null,
"sort_order": null}, {"path": "lengths.csv", "crs": null, "geometry_type": null, "columns_kept":
["road_class"], "columns_new": ["length_km"], "one_row_per": "road_class", "sort_by": "length_km",
"sort_order": "descending"}]}"""

MAX_CODE_CONTEXT = 6000
MAX_SECTION = 2500


def _clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    half = limit // 2
    return text[:half] + "\n...[cut]...\n" + text[-half:]


def _code_clip(code: str, limit: int) -> str:
    """Code cut to whole lines from its start and end, the gap said in a comment: a model that
    copies it copies a comment, not a marker that is no Python (``...[cut]...``)."""
    lines = code.strip().splitlines()
    if len("\n".join(lines)) <= limit:
        return "\n".join(lines)
    head: list[str] = []
    tail: list[str] = []
    size = 0
    for line in lines:  # the first half of the budget from the start
        if size + len(line) + 1 > limit // 2:
            break
        head.append(line)
        size += len(line) + 1
    for line in reversed(lines[len(head) :]):  # the rest from the end
        if size + len(line) + 1 > limit:
            break
        tail.insert(0, line)
        size += len(line) + 1
    return "\n".join(head + [f"# ... ({len(lines) - len(head) - len(tail)} lines not shown) ..."] + tail)


def _own_code(code: str) -> str:
    """The model's code without the contract's mends appended to it (unless that is all there is)."""
    return without_mends(code) or code


@dataclass
class SubtaskContext:
    """Everything the coder sees for one subtask; built by ``SubtaskWork``, rendered here."""

    request: str
    data_overview: str
    plan: list[str]
    subtask_index: int
    accepted_code: list[str] = field(default_factory=list)
    human_fixes: list[str] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    variables: str = ""
    api_docs: str = ""
    failed_code: str | None = None
    failure: str | None = None
    repair_context: str = ""
    lookahead: bool = False
    contract: str = ""  # what the deliverables must satisfy (checked on the files)
    crs_advice: str = ""  # the CRS advisor's answer for what this subtask does (area, distance, official grid)


def _contract_section(contract: str) -> list[str]:
    if not contract:
        return []
    return [f"## The output files must satisfy (each is checked on the written file)\n{_clip(contract, MAX_SECTION)}"]


def planner_messages(request: str, data_overview: str, intros: str, contract: str = "") -> list[BaseMessage]:
    parts = [
        f"## Request\n{request.strip()}",
        f"## Data in the working directory and kernel\n{_clip(data_overview, MAX_SECTION) or '(none found)'}",
    ]
    parts += _contract_section(contract)
    if intros:
        parts.append(f"## Libraries available\n{_clip(intros, MAX_SECTION)}")
    parts.append("Write the numbered plan now.")
    return [SystemMessage(PLANNER_SYSTEM), HumanMessage("\n\n".join(parts))]


def proposer_messages(request: str, outputs: list[str]) -> list[BaseMessage]:
    """The request and its outputs only: shown the rules' requirements, small models copy them out."""
    body = (
        f"## Request\n{request.strip()}\n\n## Output files\n"
        + "\n".join(f"- `{o}`" for o in outputs)
        + "\n\nWrite the requirements now, one per line, or NONE."
    )
    return [SystemMessage(PROPOSER_SYSTEM), HumanMessage(body)]


def reader_messages(request: str, outputs: list[str]) -> list[BaseMessage]:
    """The request and its output files: the model fills the reading's form for each file."""
    body = (
        f"## Request\n{request.strip()}\n\n## Output files\n"
        + "\n".join(f"- `{o}`" for o in outputs)
        + "\n\nFill in the JSON for these output files now."
    )
    return [SystemMessage(READER_SYSTEM), HumanMessage(body)]


def _plan_text(plan: list[str], current: int | None) -> str:
    lines = []
    for i, description in enumerate(plan):
        marker = "  <- current step" if i == current else ""
        lines.append(f"{i + 1}. {description}{marker}")
    return "\n".join(lines)


def coder_messages(ctx: SubtaskContext) -> list[BaseMessage]:
    """Stable prefix (request, data, plan, code so far) then the subtask and its feedback."""
    parts = [
        f"## Request\n{ctx.request.strip()}",
        f"## Data found at the start\n{_clip(ctx.data_overview, MAX_SECTION) or '(none)'}",
        *_contract_section(ctx.contract),
        f"## Plan\n{_plan_text(ctx.plan, None)}",
    ]
    if ctx.accepted_code:
        code = _code_clip("\n\n".join(_own_code(c) for c in ctx.accepted_code), MAX_CODE_CONTEXT)
        parts.append(f"## Code already run in the kernel (its variables exist)\n```python\n{code}\n```")
    if ctx.human_fixes:
        fixes = "\n\n".join(f"```python\n{fix.strip()}\n```" for fix in ctx.human_fixes)
        parts.append(f"## Fixes written by the user (they are correct: follow them)\n{_clip(fixes, MAX_SECTION)}")
    if ctx.variables:
        parts.append(f"## Variables in the kernel now\n{_clip(ctx.variables, MAX_SECTION)}")
    if ctx.api_docs:
        parts.append(f"## API documentation of the installed libraries\n{_clip(ctx.api_docs, MAX_SECTION)}")
    subtask = ctx.plan[ctx.subtask_index]
    if ctx.lookahead:
        remaining = _plan_text(ctx.plan[ctx.subtask_index :], None)
        parts.append(
            "## Your task\nWrite the code for ALL the remaining steps, in order, in one block. "
            f"Start each step with a comment line '# Step <number>'.\n{remaining}"
        )
    else:
        parts.append(f"## Your step ({ctx.subtask_index + 1} of {len(ctx.plan)})\n{subtask}")
        if ctx.crs_advice:
            parts.append(ctx.crs_advice)
    for hint in ctx.hints:
        parts.append(f"## Hint from the user\n{hint}")
    if ctx.failed_code is not None:
        parts.append(
            f"## Your previous attempt failed\n```python\n{_code_clip(_own_code(ctx.failed_code), MAX_SECTION)}\n```\n"
            f"Error: {ctx.failure}"
        )
        if ctx.repair_context:
            parts.append(ctx.repair_context)
        parts.append(
            "Write the corrected ```python code block for this step. Its first line is a comment "
            "'# Cause: <why the previous attempt failed>'."
        )
    else:
        parts.append("Write the ```python code block for this step.")
    return [SystemMessage(CODER_SYSTEM), HumanMessage("\n\n".join(parts))]


def reviewer_messages(request: str, done: list[tuple[str, str]], remaining: list[str]) -> list[BaseMessage]:
    done_text = "\n".join(f"- {description}\n  result: {_clip(out, 400) or '(no output)'}" for description, out in done)
    remaining_text = _plan_text(remaining, None)
    body = (
        f"## Request\n{request.strip()}\n\n## Done\n{done_text}\n\n## Remaining steps\n{remaining_text}\n\n"
        "Answer OK or a new numbered list of the remaining steps."
    )
    return [SystemMessage(REVIEWER_SYSTEM), HumanMessage(body)]


def rewriter_messages(request: str, data_overview: str, plan: list[str], index: int, error: str) -> list[BaseMessage]:
    body = (
        f"## Request\n{request.strip()}\n\n"
        f"## Data found at the start\n{_clip(data_overview, MAX_SECTION) or '(none)'}\n\n"
        f"## Plan\n{_plan_text(plan, index)}\n\n## The failing step ({index + 1})\n{plan[index]}\n\n"
        f"## Its error, the same on every attempt\n{_clip(error, 800)}\n\nWrite the new step {index + 1} now."
    )
    return [SystemMessage(REWRITER_SYSTEM), HumanMessage(body)]


NO_CODE_REMINDER = "Your answer had no ```python code block. Answer again with exactly one ```python code block."


def single_messages(request: str, data_overview: str) -> list[BaseMessage]:
    """The baseline: the whole request answered by one block, no plan, no feedback."""
    body = (
        f"## Request\n{request.strip()}\n\n"
        f"## Data found at the start\n{_clip(data_overview, MAX_SECTION) or '(none)'}\n\n"
        "Write ONE ```python code block that does the whole request."
    )
    return [
        SystemMessage(CODER_SYSTEM.replace("ONE step of a plan at a time", "the whole analysis")),
        HumanMessage(body),
    ]
