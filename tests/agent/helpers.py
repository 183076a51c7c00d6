"""Shared pieces for agent tests: a real kernel in a temp dir and a step-aware script."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from pathlib import Path

from geoagent_ext.agent.kernel_handle import BoundKernel
from geoagent_ext.agent.run import Run, RunOptions
from geoagent_ext.kernel import KernelService, start_kernel
from geoagent_ext.kernel.launch import local_kernel_manager
from geoagent_ext.llm.client import LLMClient
from geoagent_ext.llm.scripted import ScriptedChatModel

_STEP = re.compile(r"## Your step \((\d+) of (\d+)\)")


def fenced(code: str) -> str:
    return f"```python\n{code.strip()}\n```"


class StepScript:
    """Answers the planner with ``plan`` and each step from a queue of replies.

    ``steps`` maps a substring of the step description to the list of code
    replies for its successive attempts (the last one repeats).
    """

    def __init__(
        self,
        plan: list[str],
        steps: dict[str, list[str]],
        review: str = "OK",
        rewrite: str = "",
        requirements: str = "NONE",
        reading: str = '{"outputs": []}',
    ):
        self.plan = plan
        self.requirements = requirements  # the model's proposed requirements (contract.proposed)
        self.reading = reading  # the model's reading of the request (contract.reading)
        self.rewrite = rewrite  # the planner's new wording for a step that keeps failing the same way
        self.steps = {key: list(replies) for key, replies in steps.items()}
        self.review = review
        self.calls: dict[str, int] = {}

    def __call__(self, messages) -> str:
        system, user = messages[0].text, messages[-1].text
        if "plans Python analyses" in system:
            return "\n".join(f"{i}. {step}" for i, step in enumerate(self.plan, 1))
        if "what the output files must satisfy" in system:
            return self.requirements
        if "fill in, as JSON" in system:
            return self.reading
        if "reviewing a geospatial analysis" in system:
            return self.review
        if "keeps failing" in system:
            assert self.rewrite, "the step was escalated to a rewrite, but the script has none"
            return self.rewrite
        section = user.split("## Your step", 1)[1] if "## Your step" in user else user
        step_text = section.split("\n## ", 1)[0]
        # The most specific key wins: an inserted step's text quotes the step it serves.
        for key, replies in sorted(self.steps.items(), key=lambda kv: -len(kv[0])):
            if key in step_text:
                n = self.calls.get(key, 0)
                self.calls[key] = n + 1
                reply = replies[min(n, len(replies) - 1)]
                return reply if reply.startswith(("```", "Cause", "no code")) else fenced(reply)
        raise AssertionError(f"no scripted reply for step: {section[:200]}")


@asynccontextmanager
async def real_kernel(cwd: Path):
    manager = local_kernel_manager()
    kernel_id = await start_kernel(manager, cwd=str(cwd), kernel_name="python3")
    service = KernelService(manager)
    try:
        yield BoundKernel(service, kernel_id)
    finally:
        await service.close()
        await manager.shutdown_all(now=True)


def make_run(request: str, kernel, model: ScriptedChatModel, tmp_path: Path, *, timeout: float = 30, **options) -> Run:
    llm = LLMClient(model, timeout=timeout, retries=1)
    return Run(
        request,
        kernel=kernel,
        llm=llm,
        model_name="scripted:test",
        options=RunOptions(**options),
        log_dir=tmp_path / "runs",
    )


async def run_scripted(
    workdir: Path, request: str, responder, tmp_path: Path, **options
) -> tuple[Run, object, ScriptedChatModel]:
    """A whole run of ``request`` with a scripted model on a real kernel in ``workdir``:
    (the run, its ``finished`` event, the model with the prompts it saw)."""
    model = ScriptedChatModel(responder=responder)
    async with real_kernel(workdir) as kernel:
        run = make_run(request, kernel, model, tmp_path, **options)
        finished = await run.wait()
    return run, finished, model


def types(run: Run) -> list[str]:
    return [e.type for e in run.bus.history]
