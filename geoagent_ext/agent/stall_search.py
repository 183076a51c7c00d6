"""The loop, and the tree search where the loop stalls (strategy ``auto``).

The loop is cheaper per solved step; the search draws several candidates and keeps what meets
the most requirements, which pays where the loop repeats itself. So each step starts in the loop,
and a step on which the loop sees the same error or the same unmet requirement a second time is
handed to the search, with the search's own budget (``MctsOptions``), for at most
``search_steps`` steps per run (the user's budget). A ``search_started`` event says why.
"""

from __future__ import annotations

from .events import SearchStarted
from .loop import SequentialSolver
from .search import MctsOptions, MctsSolver
from .subtask_work import Outcome, SolverRun


class StallSearchSolver:
    name = "auto"

    def __init__(self, run: SolverRun, options: MctsOptions, search_steps: int):
        self.run = run
        self.options = options
        self.loop = SequentialSolver(run)
        self.search = MctsSolver(run, options)
        self.searches_left = search_steps

    async def solve(self, index: int) -> Outcome:
        outcome = await self.loop.solve(index, stop_on_stall=self.searches_left > 0)
        if outcome.kind != "stalled":
            return outcome
        self.searches_left -= 1
        subtask = self.run.subtasks[index]
        self.run.emit(
            SearchStarted(
                run_id=self.run.id,
                subtask_id=subtask.id,
                reason=outcome.error,
                max_nodes=self.options.max_nodes,
                max_llm_calls=self.options.max_llm_calls,
                max_seconds=self.options.max_seconds,
            )
        )
        self.run.progress(f"step {index + 1}: the loop stalled ({outcome.error[:160]}); searching", subtask.id)
        return await self.search.solve(index)
