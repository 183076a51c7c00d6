"""Monte Carlo Tree Search over code candidates for one subtask.

Tree: the root is the state after the accepted code; its children are sampled
candidates for the subtask (their prior p is the model's sequence score); a
failed node's children are repairs made by the loop's strategies (same prompt,
traceback, hints and jedi context as the loop). A node whose code runs is a
solution candidate.

- expansion, progressive (default): the root gets one candidate at a time, the
  first at the loop's low temperature; a further one only when p-UCB's visits
  allow it (children <= ceil(sqrt(visits)), at most k of n samples) or every
  branch is dead. An easy subtask so costs what the loop costs, and the samples
  go where the first answer failed. ``widening="full"`` is plain (non-progressive)
  expansion: n samples at once, the k best by sequence score kept.
- selection: p-UCB, argmax Q + beta(s) * p * sqrt(log v) / (1 + v_i), with
  beta(s) = log((v + c_base + 1) / c_base) + c
- evaluation: trial-run the node (never the live kernel); if it runs, look ahead:
  the model writes the remaining steps in one go, trial-run node + rollout, and
  reward = executable steps / all steps (1 when the rollout completes); a failed
  node gets -1
- backpropagation: rewards add to the node and its ancestors
- stop: a node with reward 1, ``patience`` more nodes after the first runnable
  one, an executable node chosen three times, or the budget.
Only the chosen node's code is committed to the live kernel. The loop's
after-step check (empty results, written files without the requested keys)
runs on the committed node; a warning turns it into a failed node whose repair
the search tries next (at most ``MAX_SEMANTIC_RETRIES`` times, as the loop).

The steps of the chosen node's look-ahead that ran are kept as seeds: the next
subtask's search first tries its chunk (with the rest of those chunks as its
look-ahead, so no model call) and takes it when all of it runs again (a seed
with no look-ahead left gets a fresh one, and holds when its next step runs);
it samples only if the seed does not hold. A small model writes one coherent
script more reliably than it writes the same script step by step, and this
keeps it.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..llm.client import LLMNoAnswer
from . import codeinfo, repair
from .deliverables import met_share, requirements_met, trial_suffix
from .events import SearchNode
from .prompts import coder_messages
from .subtask_work import (
    FIRST_TEMPERATURE,
    MAX_SEMANTIC_RETRIES,
    REPAIR_TEMPERATURE,
    RESULT_CHECK,
    Attempt,
    Outcome,
    SolverRun,
    SubtaskWork,
    code_of,
    record_broken,
    record_failure,
)

SUBTASK_DONE_MARK = "__GEOAGENT_STEP_DONE__"
_SUBTASK_SPLIT = re.compile(r"^\s*#\s*Step\s+\d+.*$", re.IGNORECASE | re.MULTILINE)


@dataclass
class Node:
    id: str
    code: str
    parent: Node | None = None
    prior: float = 1.0
    children: list[Node] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0
    status: str = "new"  # new | ok | failed | chosen
    reward: float | None = None
    attempt: Attempt | None = None
    expanded: bool = False
    rollout: list[str] | None = None  # the look-ahead steps that ran after this node, in order
    met: list[str] = field(default_factory=list)  # requirement ids its reward's trial found met
    unmet: list[str] = field(default_factory=list)  # and those it found not met

    @property
    def q(self) -> float:
        if self.status == "failed":
            return -1.0
        return self.value / self.visits if self.visits else 0.0


def beta(visits: int, c: float, c_base: float) -> float:
    return math.log((visits + c_base + 1) / c_base) + c


def p_ucb(parent: Node, child: Node, c: float, c_base: float) -> float:
    explore = (
        beta(parent.visits, c, c_base)
        * child.prior
        * math.sqrt(math.log(max(parent.visits, 1) + 1))
        / (1 + child.visits)
    )
    return child.q + explore


def priors(logprobs: list[float | None], lengths: list[int]) -> list[float]:
    """Softmax of per-token mean log-probabilities; uniform when the provider gives none."""
    known = [lp for lp in logprobs if lp is not None]
    if not logprobs or len(known) < len(logprobs):
        return [1.0 / max(len(logprobs), 1)] * len(logprobs)
    means = [lp / max(n, 1) for lp, n in zip(known, lengths)]
    top = max(means)
    weights = [math.exp(m - top) for m in means]
    total = sum(weights)
    return [w / total for w in weights]


def split_rollout(code: str) -> list[str]:
    """Cut a look-ahead block at its '# Step N' comments (one chunk when there are none)."""
    marks = [m.start() for m in _SUBTASK_SPLIT.finditer(code)]
    if not marks:
        return [code] if code.strip() else []
    bounds = marks + [len(code)]
    head = code[: marks[0]]
    chunks = [code[a:b] for a, b in zip(bounds, bounds[1:])]
    if head.strip():
        chunks[0] = head + chunks[0]
    return [c for c in chunks if c.strip()]


def with_requirements(ran: float, met: float | None) -> float:
    """A reward that counts the deliverable's requirements met as well as the steps that ran:
    a program that runs to the end but writes a file in the wrong CRS is not a full answer."""
    return ran if met is None else ran * (0.5 + 0.5 * met)


def instrument(node_code: str, rollout_chunks: list[str], guards: list[str] | None = None) -> str:
    """One trial program: the node, then each rollout step, each followed by its guard
    (the files that step must write) and a marker print."""
    guards = list(guards or []) + [""] * (len(rollout_chunks) + 1)
    parts = [node_code + guards[0], f"print({SUBTASK_DONE_MARK!r})"]
    for chunk, guard in zip(rollout_chunks, guards[1:]):
        parts += [chunk + guard, f"print({SUBTASK_DONE_MARK!r})"]
    return "\n".join(parts)


class MctsOptions(BaseModel):
    """The search's knobs (``RunOptions.mcts``); budgets are per subtask."""

    model_config = ConfigDict(extra="forbid")

    n_samples: int = Field(4, ge=1, description="candidates drawn at most for a subtask's root")
    k: int = Field(3, ge=1, description="root children kept at most")
    c: float = 1.0
    c_base: float = Field(10.0, gt=0)
    max_nodes: int = Field(12, ge=1, description="evaluated nodes")
    max_llm_calls: int = Field(16, ge=1)
    max_seconds: float = Field(900, gt=0)
    lookahead: bool = True
    temperature: float = Field(0.8, ge=0, description="for samples after the first")
    widening: Literal["progressive", "full"] = "progressive"
    patience: int = Field(1, ge=0, description="nodes tried after the first runnable one before committing the best")

    @property
    def draws(self) -> int:
        """Candidates drawn at most for a root: ``n_samples``, never fewer than the k kept."""
        return max(self.n_samples, self.k)


@dataclass
class _SubtaskSearch:
    """The tree of one subtask and what it has spent."""

    root: Node
    started: float
    calls_at_start: int
    nodes: int = 0  # evaluated nodes
    samples: int = 0  # candidates drawn for the root
    sampled: int = 0  # root children made from them (a seed is not one)
    best: Node | None = None
    since_best: int = 0  # nodes evaluated after the first runnable one


def _dead(node: Node) -> bool:
    """A failed node whose repairs (if any) all failed for good: nothing left to try below it."""
    return node.status == "failed" and node.expanded and all(_dead(c) for c in node.children)


class MctsSolver:
    name = "mcts"

    def __init__(self, run: SolverRun, options: MctsOptions | None = None):
        self.run = run
        self.options = options or MctsOptions()
        self._ids = itertools.count(1)
        self._seeds: dict[str, tuple[str, list[str]]] = {}  # subtask id -> (code, look-ahead after it)

    # ----- budget and events ----------------------------------------------------------
    def _budget_left(self, state: _SubtaskSearch) -> bool:
        calls = self.run.llm.stats.calls - state.calls_at_start
        return (
            state.nodes < self.options.max_nodes
            and calls < self.options.max_llm_calls
            and time.monotonic() - state.started < self.options.max_seconds
        )

    def _publish(self, work: SubtaskWork, node: Node, error: str | None = None) -> None:
        self.run.emit(
            SearchNode(
                run_id=self.run.id,
                subtask_id=work.subtask.id,
                node_id=node.id,
                parent_id=node.parent.id if node.parent else None,
                code=node.code,
                visits=node.visits,
                q=round(node.q, 4),
                prior=round(node.prior, 4),
                reward=node.reward,
                status=node.status,
                error=error,
                met=list(node.met),
                unmet=list(node.unmet),
            )
        )

    def _new_node(self, work: SubtaskWork, code: str, parent: Node, prior: float) -> Node:
        node = Node(id=f"{work.subtask.id}-{next(self._ids)}", code=code, parent=parent, prior=prior)
        parent.children.append(node)
        self._publish(work, node)
        return node

    # ----- tree operations --------------------------------------------------------------
    async def _sample_children(
        self, work: SubtaskWork, state: _SubtaskSearch, parent: Node, ctx, count: int, keep: int, temperature: float
    ) -> list[Node]:
        """Draw ``count`` candidates, keep the ``keep`` best by sequence score among those not yet in the tree."""
        gens = []
        for _ in range(count):  # one by one: a code-less sample is dropped, not fatal
            try:
                gens.append(
                    await self.run.llm.complete(
                        coder_messages(ctx),
                        temperature=temperature,
                        max_tokens=self.run.options.max_tokens,
                        expect="code",
                    )
                )
            except LLMNoAnswer:
                continue
        known = {n.code for n in _walk(state.root)}
        seen: dict[str, Any] = {}
        for gen in gens:
            code = code_of(gen.text, self.run.accepted)
            if code.strip() and code not in seen and code not in known:
                seen[code] = gen
        ranked = sorted(seen.items(), key=lambda kv: (kv[1].logprob or 0.0) / max(kv[1].tokens_out, 1), reverse=True)[
            :keep
        ]
        ps = priors([g.logprob for _, g in ranked], [g.tokens_out for _, g in ranked])
        return [self._new_node(work, code, parent, p) for (code, _), p in zip(ranked, ps)]

    def _may_widen(self, state: _SubtaskSearch) -> bool:
        root = state.root
        if state.samples >= self.options.draws or state.sampled >= self.options.k:
            return False
        if self.options.widening == "full":
            return state.samples == 0
        if all(_dead(c) for c in root.children):
            return True
        return len(root.children) < max(1, math.ceil(math.sqrt(root.visits)))

    async def _widen(self, work: SubtaskWork, state: _SubtaskSearch) -> list[Node]:
        """New root candidates: one (progressive) or the k best of n (full)."""
        ctx = work.context(variables=await self.run.variable_summary(), api_docs=await work.api_docs(None))
        if self.options.widening == "full":
            count, keep, temperature = self.options.draws, self.options.k, self.options.temperature
        else:  # the loop's first answer, then variety
            count, keep, temperature = 1, 1, FIRST_TEMPERATURE if state.samples == 0 else self.options.temperature
        state.samples += count
        children = await self._sample_children(work, state, state.root, ctx, count, keep, temperature)
        state.sampled += len(children)
        state.root.expanded = True
        return children

    async def _expand_failed(self, work: SubtaskWork, state: _SubtaskSearch, node: Node) -> Outcome | None:
        """A repair child of a failed node by the loop's strategy; an Outcome when a subtask must be inserted."""
        node.expanded = True
        attempt = node.attempt
        assert attempt is not None
        parent = node.parent
        no_code = (
            parent is not None
            and parent.status == "failed"
            and parent.attempt is not None
            and repair.repair_the_code_before(attempt.ename, parent.attempt.code)
        )
        if no_code:  # only comments (the note echoed): repair the parent's code, its failure, once more
            assert parent is not None and parent.attempt is not None  # what no_code checked
            attempt = parent.attempt
        diagnosis = await work.diagnose(attempt)
        if diagnosis.fixed_code and diagnosis.fixed_code not in {n.code for n in _walk(state.root)}:
            self._new_node(work, diagnosis.fixed_code, node, 1.0)
            return None
        if diagnosis.strategy == "insert_subtask" and self.run.may_insert(work.subtask.id, diagnosis.name):
            return Outcome("insert", code=attempt.code, error=attempt.error or "", name=diagnosis.name)
        context = await repair.enrich(diagnosis, attempt.code, attempt.lineno, self.run.kernel)
        context = repair.with_no_code_note(context) if no_code else context
        ctx = work.context(
            variables=await self.run.variable_summary(),
            api_docs=await work.api_docs(attempt.error),
            failed_code=attempt.code,
            failure=attempt.error,
            repair_context=context,
        )
        await self._sample_children(work, state, node, ctx, count=1, keep=1, temperature=REPAIR_TEMPERATURE)
        return None

    def _select(self, state: _SubtaskSearch) -> Node | None:
        """The root (to widen it), a new node, a failed node to repair or a runnable node to revisit;
        None when nothing is left to try."""
        node = state.root
        while True:
            if node is state.root and self._may_widen(state):
                return node
            open_children = [c for c in node.children if not _dead(c)]
            if not open_children:
                return None
            parent = node
            node = max(open_children, key=lambda c: p_ucb(parent, c, self.options.c, self.options.c_base))
            if node.status in ("new", "ok") or not node.expanded:
                return node

    def _backpropagate(self, node: Node, reward: float) -> None:
        walker: Node | None = node
        while walker is not None:
            walker.visits += 1
            walker.value += reward
            walker = walker.parent

    def _failed(self, work: SubtaskWork, node: Node, attempt: Attempt) -> float:
        """Mark the node failed with ``attempt``'s error, publish it; the reward of a failed node."""
        node.attempt, node.status, node.reward = attempt, "failed", -1.0
        self._publish(work, node, attempt.error)
        return -1.0

    async def _evaluate(self, work: SubtaskWork, node: Node, rollout: list[str] | None = None) -> float:
        """Trial the node; if it runs, trial node + look-ahead rollout; returns the reward.

        ``rollout``: the look-ahead to use instead of asking the model (a seed's).
        """
        run = self.run
        run.stats.attempts += 1
        node.status = "running"
        info = codeinfo.analyse(node.code)
        if not info.ok:  # no trial for code that cannot run (or does nothing)
            attempt = Attempt(code=node.code, error=info.problem, ename=info.problem_kind)
            return self._failed(work, node, attempt)
        remaining = len(run.subtasks) - work.index - 1
        last = not (self.options.lookahead and remaining > 0)
        # What holds of the deliverables this code rewrites is checked in the trial; the last step checks them all.
        trial, broken = await work.trial(node.code, work.held_requirements_written(info), every_requirement=last)
        attempt = Attempt(code=node.code, result=trial)
        if broken:
            return self._failed(work, node, record_broken(attempt, trial, broken))
        if trial.status != "ok":
            record_failure(attempt, trial)
            return self._failed(work, node, attempt)
        node.attempt, node.status = attempt, "ok"
        if last:
            node.met, node.unmet = requirements_met(trial.stdout)
            reward = with_requirements(1.0, met_share(trial.stdout))
        else:
            reward = await self._rollout_reward(work, node, remaining, rollout)
        node.reward = reward
        self._publish(work, node)
        return reward

    async def _rollout_reward(
        self, work: SubtaskWork, node: Node, remaining: int, chunks: list[str] | None = None
    ) -> float:
        if chunks is None:
            ctx = work.context(lookahead=True, subtask_index=work.index + 1)
            ctx.accepted_code = ctx.accepted_code + [node.code]
            try:
                gen = await self.run.llm.complete(
                    coder_messages(ctx), temperature=0.2, max_tokens=self.run.options.max_tokens * 2, expect="code"
                )
            except Exception:
                return 1.0 / (remaining + 1)  # the node itself ran; no rollout to credit
            chunks = split_rollout(code_of(gen.text, self.run.accepted))[:remaining]
        if not chunks:
            return 1.0 / (remaining + 1)
        guards = [work.output_guard(work.index + i) for i in range(len(chunks) + 1)]
        program = instrument(node.code, chunks, guards) + trial_suffix(self.run.contract)
        trial = await self.run.kernel.trial(program, timeout=self.run.options.trial_timeout)
        done = min(
            (trial.stdout or "").count(SUBTASK_DONE_MARK), len(chunks) + 1
        )  # the node's own marker counts as its step
        node.rollout = chunks[: max(done - 1, 0)]  # the steps that ran after it: seeds if it is chosen
        node.met, node.unmet = requirements_met(trial.stdout)
        return with_requirements(done / (remaining + 1), met_share(trial.stdout))

    def _keep_seeds(self, work: SubtaskWork, node: Node) -> None:
        """Map the chosen node's look-ahead steps that ran onto the next subtasks (by id, so a re-plan drops them)."""
        self._seeds.clear()
        following = self.run.subtasks[work.index + 1 :]
        ran = (node.rollout or [])[: len(following)]
        for i, (subtask, chunk) in enumerate(zip(following, ran)):
            self._seeds[subtask.id] = (chunk, ran[i + 1 :])

    async def _try_seed(self, work: SubtaskWork, state: _SubtaskSearch) -> Node | None:
        """Evaluate this subtask's seed, if any, as root's first child; returns it when it holds
        (it runs, and so does the rest of the look-ahead it came with)."""
        seed = self._seeds.pop(work.subtask.id, None)
        if seed is None or not seed[0].strip():
            return None
        code, rest = seed
        node = self._new_node(work, code.strip("\n"), state.root, 1.0)
        state.nodes += 1
        reward = await self._evaluate(work, node, rollout=rest or None)
        self._backpropagate(node, reward)
        if node.status != "ok":
            return None
        self._consider(state, node)
        remaining = len(self.run.subtasks) - work.index - 1
        # It holds when the look-ahead it came with runs again; a seed with none must get its
        # fresh look-ahead's next step to run (a seed that leaves the next step no way on, e.g.
        # a buffer that drops the id column, is only a candidate: the search samples against it).
        promised = len(rest) if rest else min(remaining, 1 if self.options.lookahead else 0)
        held = reward >= (1 + promised) / (remaining + 1)
        return node if held else None

    def _consider(self, state: _SubtaskSearch, node: Node) -> None:
        """Count the node against the patience and keep the best runnable node."""
        if state.best is not None:
            state.since_best += 1
        if node.status == "ok" and (state.best is None or (node.reward or 0) > (state.best.reward or 0)):
            state.best = node

    # ----- the search ---------------------------------------------------------------------
    async def _search(self, work: SubtaskWork, state: _SubtaskSearch) -> Node | Outcome | None:
        """Grow the tree until a node is good enough to commit (returned), or the budget ends
        (the best runnable node, or None)."""
        while self._budget_left(state):
            if state.best is not None and (
                (state.best.reward or 0) >= 1.0 or state.since_best >= self.options.patience
            ):
                break
            node = self._select(state)
            if node is None:
                break
            if node is state.root:
                children = await self._widen(work, state)
                for child in children if self.options.widening == "progressive" else []:
                    await self._evaluate_new(work, state, child)  # the point of a new sample: try it now
                continue
            if node.status == "new":
                await self._evaluate_new(work, state, node)
            elif node.status == "ok":
                # Re-selecting an executable node repeats its reward: a node chosen again and again is the answer.
                self._backpropagate(node, node.reward or 0.0)
                if node.visits >= 3:
                    break
            else:
                outcome = await self._expand_failed(work, state, node)
                if outcome is not None:
                    return outcome
        return state.best

    async def _evaluate_new(self, work: SubtaskWork, state: _SubtaskSearch, node: Node) -> None:
        state.nodes += 1
        reward = await self._evaluate(work, node)
        self._backpropagate(node, reward)
        self._consider(state, node)

    async def solve(self, index: int) -> Outcome:
        run = self.run
        work = SubtaskWork(run, index)
        state = _SubtaskSearch(
            root=Node(id=f"{work.subtask.id}-root", code=""),
            started=time.monotonic(),
            calls_at_start=run.llm.stats.calls,
        )
        chosen: Node | Outcome | None = await self._try_seed(work, state)
        accepted: tuple[Node, Outcome] | None = None  # committed, but its result looked wrong
        semantic_failures = 0
        while True:
            if chosen is None:
                chosen = await self._search(work, state)
            if isinstance(chosen, Outcome):
                return chosen
            if chosen is None:
                break
            outcome = await self._commit(work, chosen, state.nodes)
            if (
                outcome.kind != "solved"
                or not outcome.warnings
                or semantic_failures >= MAX_SEMANTIC_RETRIES
                or not self._budget_left(state)
            ):
                return self._accept(work, chosen, outcome)
            semantic_failures += 1
            accepted = (chosen, outcome)
            self._reject(work, state, chosen, outcome.warnings)
            chosen = None
        if accepted is not None:  # nothing better than the committed node whose result looked wrong
            return self._accept(work, *accepted)
        failed = [n for n in _walk(state.root) if n.attempt is not None]
        last = failed[-1].attempt if failed else None
        return Outcome(
            "needs_human",
            code=last.code if last else "",
            error=(last.error or "") if last else "no candidate code",
            attempts=state.nodes,
        )

    def _accept(self, work: SubtaskWork, node: Node, outcome: Outcome) -> Outcome:
        if outcome.kind == "solved":
            node.status = "chosen"
            self._publish(work, node)
            self._keep_seeds(work, node)
        return outcome

    def _reject(self, work: SubtaskWork, state: _SubtaskSearch, node: Node, warnings: list[str]) -> None:
        """The after-step check found the committed node's result wrong: it becomes a failed node to repair."""
        assert node.attempt is not None
        node.attempt.error = "The code ran but the result looks wrong: " + "; ".join(warnings)
        node.attempt.ename, node.attempt.evalue, node.attempt.lineno = RESULT_CHECK, "; ".join(warnings), None
        node.status, node.reward, node.expanded = "failed", -1.0, False
        runnable = [n for n in _walk(state.root) if n.status == "ok"]
        state.best = max(runnable, key=lambda n: n.reward or 0) if runnable else None
        state.since_best = 0
        self._publish(work, node, node.attempt.error)

    async def _commit(self, work: SubtaskWork, node: Node, nodes: int) -> Outcome:
        """Run the chosen code in the live kernel (the only code that touches the user's state)."""
        run = self.run
        from .events import Executed
        from .kernel_handle import summarize

        if not await run.approve(work.subtask.id, node.code):
            node.status = "failed"
            self._publish(work, node, "rejected by the user")
            return Outcome(
                "needs_human",
                code=node.code,
                error=f"The user rejected this code: {run.last_rejection}",
                attempts=nodes,
            )
        result = await run.commit(work.subtask.id, node.code)
        warnings: list[str] = []
        if result.status == "ok":
            info = codeinfo.analyse(node.code)
            warnings = await work.check(info, result.stderr)
        run.emit(
            Executed(
                run_id=run.id,
                subtask_id=work.subtask.id,
                attempt=nodes,
                code=node.code,
                node_id=node.id,
                result=summarize(result, warnings),
            )
        )
        if result.status != "ok":
            node.status = "failed"
            self._publish(work, node, result.error.message if result.error else result.status)
            return Outcome(
                "needs_human",
                code=node.code,
                error=result.error.message if result.error else result.status,
                attempts=nodes,
            )
        return Outcome("solved", code=node.code, result=result, warnings=warnings, attempts=nodes)


def _walk(node: Node):
    yield node
    for child in node.children:
        yield from _walk(child)
