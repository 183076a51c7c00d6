"""MCP tools: start a GeoAgent run on a notebook's kernel and report how it went.

A run started here is the panel's and the chat's kind of run (``RunManager.start``): one per
kernel, the server's models only, its events and log redacted, visible in the panel. A tool call
waits at most ``mcp_run_wait`` seconds; the run goes on after the call returns (or is
cancelled by the client), and ``geoagent_run_status`` follows it.
"""

import asyncio
from typing import Annotated, Any, Literal

from pydantic import Field

from ..runs import StartRunRequest
from .access import geoagent_services, geoagent_tool
from .kernel_tools import Notebook, notebook_or_active

POLL_S = 0.25
Wait = Annotated[
    int | None,
    Field(
        ge=0,
        description="Seconds to wait for the run to end or need the user "
        "(at most the server's mcp_run_wait); 0 answers at once.",
    ),
]
NEXT = {
    "running": "still working: call geoagent_run_status with this run_id to follow it",
    "needs_human": "a step failed every attempt: the user can fix, retry or skip it in the GeoAgent panel "
    "or with @GeoAgent in the chat",
    "awaiting_approval": "the server asks for approval before each step: the user approves it in the GeoAgent panel",
    "awaiting_contract": "the user confirms the output requirements in the GeoAgent panel",
}


async def _settle(manager: Any, run_id: str, wait: int | None) -> dict[str, Any]:
    """The run's outcome once it ended or waits for the user, or its progress after ``wait`` seconds."""
    limit = manager.settings.mcp_run_wait
    seconds = limit if wait is None else min(wait, limit)
    run = manager.get(run_id)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while run is not None and not run.done and run.waiting_for is None and loop.time() < deadline:
        await asyncio.sleep(POLL_S)
    return outcome(manager.state(run_id))


def outcome(state: dict[str, Any]) -> dict[str, Any]:
    """What a caller needs of a run's folded state: verdict, each step's accepted code or error,
    the requirements that failed, and what to do next."""
    steps = [
        {
            "step": s["description"],
            "status": s["status"],
            "attempts": s["attempts"],
            "code": s["code"] if s["status"] == "solved" else "",
            "error": s["error"],
        }
        for s in state["subtasks"]
    ]
    return {
        "run_id": state["run_id"],
        "status": state["status"],
        "message": state["message"],
        "notebook": state["notebook"],
        "model": state["model"],
        "steps": steps,
        "unmet": state["unmet"],
        "not_verified": state["not_verified"],
        "next": NEXT.get(state["status"], "finished: the accepted code ran in the notebook's kernel"),
    }


@geoagent_tool
async def geoagent_run(
    request: Annotated[
        str,
        Field(
            min_length=1,
            max_length=20_000,
            description="The analysis in plain words, "
            "naming the input files and the outputs to write (format, columns, CRS...).",
        ),
    ],
    notebook_path: Notebook = None,
    model: Annotated[
        str | None,
        Field(
            description="provider:model among those the server offers "
            "(GeoAgent panel's picker); default: the server's model."
        ),
    ] = None,
    strategy: Annotated[
        Literal["loop", "mcts", "auto"],
        Field(
            description="loop: step by step with repairs; mcts: tree search over candidates (slower, sturdier); "
            "auto: the loop, and the tree search for a step where the loop stalls."
        ),
    ] = "loop",
    wait_seconds: Wait = None,
) -> dict[str, Any]:
    """Run GeoAgent on a notebook's live kernel: it looks at the data, plans, writes code with the
    installed libraries' real API, tries each step in a throw-away fork of the kernel, repairs
    failures, runs accepted code in the kernel, and checks the output files against the request.
    Answers with the outcome (or the progress so far): steps with their code, unmet requirements."""
    manager = geoagent_services().run_manager
    body = StartRunRequest(
        request=request, notebook_path=notebook_or_active(manager, notebook_path), model=model, strategy=strategy
    )
    run = await manager.start(body)
    return await _settle(manager, run.id, wait_seconds)


@geoagent_tool
async def geoagent_run_status(
    run_id: Annotated[
        str,
        Field(
            min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$", description="The run_id geoagent_run answered."
        ),
    ],
    wait_seconds: Wait = 0,
) -> dict[str, Any]:
    """The outcome of a GeoAgent run (also one started from the panel or the chat), after waiting
    up to wait_seconds for it to end or need the user."""
    return await _settle(geoagent_services().run_manager, run_id, wait_seconds)
