"""Monte Carlo Tree Search over code candidates for one subtask (seed 000, section 3.3).

Tree: the root is the state after the accepted code; its children are the k
best of n sampled candidates for the subtask (ranked by the model's sequence
score, which is also their prior p); a failed node's children are repairs made
by the loop's strategies. A node whose code runs is a solution candidate.

- selection: p-UCB, argmax Q + beta(s) * p * sqrt(log v) / (1 + v_i), with
  beta(s) = log((v + c_base + 1) / c_base) + c
- evaluation: trial-run the node (never the live kernel); if it runs, look ahead:
  the model writes the remaining steps in one go, trial-run node + rollout, and
  reward = executable steps / all steps (1 when the rollout completes); a failed
  node gets -1
- backpropagation: rewards add to the node and its ancestors
Only the chosen node's code is committed to the live kernel.

When the chosen node's rollout ran to the end, its chunks are kept as seeds:
the next subtask's search first tries its chunk (with the rest of that rollout
as its look-ahead, so no model call), and samples new candidates only if the
seed does not run to the end. A small model writes one coherent script more
reliably than it writes the same script step by step, and this keeps it.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..llm.client import LLMNoAnswer
from . import repair
from .events import SearchNode
from .loop import Attempt, Outcome, StepWork
from .prompts import coder_messages

if TYPE_CHECKING:
    from .run import Run

STEP_MARK = "__GEOAGENT_STEP_DONE__"
_STEP_SPLIT = re.compile(r"^\s*#\s*Step\s+\d+.*$", re.IGNORECASE | re.MULTILINE)


@dataclass
class Node:
    id: str
    code: str
    parent: "Node | None" = None
    prior: float = 1.0
    children: list["Node"] = field(default_factory=list)
    visits: int = 0
    value: float = 0.0
    status: str = "new"  # new | ok | failed | chosen
    reward: float | None = None
    attempt: Attempt | None = None
    expanded: bool = False
    rollout: list[str] | None = None  # the remaining steps' code, when its look-ahead ran to the end

    @property
    def q(self) -> float:
        if self.status == "failed":
            return -1.0
        return self.value / self.visits if self.visits else 0.0


def beta(visits: int, c: float, c_base: float) -> float:
    return math.log((visits + c_base + 1) / c_base) + c


def p_ucb(parent: Node, child: Node, c: float, c_base: float) -> float:
    explore = beta(parent.visits, c, c_base) * child.prior * math.sqrt(math.log(max(parent.visits, 1) + 1)) / (1 + child.visits)
    return child.q + explore


def priors(logprobs: list[float | None], lengths: list[int]) -> list[float]:
    """Softmax of per-token mean log-probabilities; uniform when the provider gives none."""
    if not logprobs or any(lp is None for lp in logprobs):
        return [1.0 / max(len(logprobs), 1)] * len(logprobs)
    means = [lp / max(n, 1) for lp, n in zip(logprobs, lengths)]
    top = max(means)
    weights = [math.exp(m - top) for m in means]
    total = sum(weights)
    return [w / total for w in weights]


def split_rollout(code: str) -> list[str]:
    """Cut a look-ahead block at its '# Step N' comments (one chunk when there are none)."""
    marks = [m.start() for m in _STEP_SPLIT.finditer(code)]
    if not marks:
        return [code] if code.strip() else []
    bounds = marks + [len(code)]
    head = code[: marks[0]]
    chunks = [code[a:b] for a, b in zip(bounds, bounds[1:])]
    if head.strip():
        chunks[0] = head + chunks[0]
    return [c for c in chunks if c.strip()]


def instrument(node_code: str, rollout_chunks: list[str], guards: list[str] | None = None) -> str:
    """One trial program: the node, then each rollout step, each followed by its guard
    (the files that step must write) and a marker print."""
    guards = list(guards or []) + [""] * (len(rollout_chunks) + 1)
    parts = [node_code + guards[0], f"print({STEP_MARK!r})"]
    for chunk, guard in zip(rollout_chunks, guards[1:]):
        parts += [chunk + guard, f"print({STEP_MARK!r})"]
    return "\n".join(parts)


class MctsSolver:
    name = "mcts"

    def __init__(self, run: "Run", *, n_samples: int = 4, k: int = 3, c: float = 1.0, c_base: float = 10.0,
                 max_nodes: int = 12, max_llm_calls: int = 16, max_seconds: float = 900, lookahead: bool = True,
                 temperature: float = 0.8):
        self.run = run
        self.n_samples, self.k = max(n_samples, k), k
        self.c, self.c_base = c, c_base
        self.max_nodes, self.max_llm_calls, self.max_seconds = max_nodes, max_llm_calls, max_seconds
        self.lookahead = lookahead
        self.temperature = temperature
        self._ids = itertools.count(1)
        self._seeds: dict[str, tuple[str, list[str]]] = {}  # subtask id -> (code, look-ahead after it)

    # ----- budget and events ----------------------------------------------------------
    def _budget_left(self, nodes: int, calls_at_start: int, started: float) -> bool:
        calls = self.run.llm.stats.calls - calls_at_start
        return nodes < self.max_nodes and calls < self.max_llm_calls and time.monotonic() - started < self.max_seconds

    def _publish(self, work: StepWork, node: Node, error: str | None = None) -> None:
        self.run.emit(SearchNode(
            run_id=self.run.id, subtask_id=work.subtask.id, node_id=node.id,
            parent_id=node.parent.id if node.parent else None, code=node.code, visits=node.visits,
            q=round(node.q, 4), prior=round(node.prior, 4), reward=node.reward, status=node.status, error=error,
        ))

    def _new_node(self, work: StepWork, code: str, parent: Node, prior: float) -> Node:
        node = Node(id=f"{work.subtask.id}-{next(self._ids)}", code=code, parent=parent, prior=prior)
        parent.children.append(node)
        self._publish(work, node)
        return node

    # ----- tree operations --------------------------------------------------------------
    async def _sample_children(self, work: StepWork, parent: Node, ctx) -> list[Node]:
        from ..llm.parsing import extract_code

        gens = []
        for _ in range(self.n_samples):  # one by one: a code-less sample is dropped, not fatal
            try:
                gens.append(await self.run.llm.complete(coder_messages(ctx), temperature=self.temperature,
                                                        max_tokens=self.run.options.max_tokens, expect="code"))
            except LLMNoAnswer:
                continue
        seen: dict[str, Any] = {}
        for gen in gens:
            code = extract_code(gen.text) or ""
            if code.strip() and code not in seen:
                seen[code] = gen
        ranked = sorted(seen.items(), key=lambda kv: (kv[1].logprob or 0.0) / max(kv[1].tokens_out, 1), reverse=True)[: self.k]
        ps = priors([g.logprob for _, g in ranked], [g.tokens_out for _, g in ranked])
        return [self._new_node(work, code, parent, p) for (code, _), p in zip(ranked, ps)]

    async def _expand_root(self, work: StepWork, root: Node) -> None:
        ctx = work.context(variables=await self.run.variable_summary(), api_docs=await work.api_docs(None))
        await self._sample_children(work, root, ctx)
        root.expanded = True

    async def _expand_failed(self, work: StepWork, node: Node) -> Outcome | None:
        """Children of a failed node by repair strategy; an Outcome when a subtask must be inserted."""
        node.expanded = True
        attempt = node.attempt
        assert attempt is not None
        diagnosis = repair.classify(attempt.code, attempt.ename, attempt.evalue, attempt.error or "", attempt.lineno, self.run.defined_names())
        if diagnosis.strategy == "add_import" and diagnosis.fixed_code:
            self._new_node(work, diagnosis.fixed_code, node, 1.0)
            return None
        if diagnosis.strategy == "insert_subtask" and self.run.may_insert(work.subtask.id, diagnosis.name):
            return Outcome("insert", code=attempt.code, error=attempt.error or "", name=diagnosis.name)
        context = await repair.enrich(diagnosis, attempt.code, attempt.lineno, self.run.kernel)
        ctx = work.context(
            variables=await self.run.variable_summary(), api_docs=await work.api_docs(attempt.error),
            failed_code=attempt.code, failure=attempt.error, repair_context=context,
        )
        saved = self.n_samples
        self.n_samples = max(1, self.k - 1)  # repairs are focused: fewer samples than a fresh step
        try:
            await self._sample_children(work, node, ctx)
        finally:
            self.n_samples = saved
        return None

    def _select(self, root: Node) -> Node:
        node = root
        while node.expanded and node.children:
            open_children = [c for c in node.children if not (c.status == "failed" and c.expanded and not c.children)]
            if not open_children:
                return node
            node = max(open_children, key=lambda c: p_ucb(node, c, self.c, self.c_base))
            if node.status in ("new", "ok"):
                return node
        return node

    def _backpropagate(self, node: Node, reward: float) -> None:
        walker: Node | None = node
        while walker is not None:
            walker.visits += 1
            walker.value += reward
            walker = walker.parent

    async def _evaluate(self, work: StepWork, node: Node, rollout: list[str] | None = None) -> float:
        """Trial the node; if it runs, trial node + look-ahead rollout; returns the reward.

        ``rollout``: the look-ahead to use instead of asking the model (a seed's).
        """
        run = self.run
        run.stats.attempts += 1
        node.status = "running"
        trial = await run.kernel.trial(node.code + work.output_guard(), timeout=run.options.trial_timeout)
        attempt = Attempt(code=node.code, result=trial)
        if trial.status != "ok":
            err = trial.error
            attempt.error = err.message if err else f"trial {trial.status}"
            attempt.ename, attempt.evalue = (err.ename, err.evalue) if err else (trial.status, "")
            attempt.lineno = getattr(err, "lineno", None) if err else None
            node.attempt, node.status, node.reward = attempt, "failed", -1.0
            self._publish(work, node, attempt.error)
            return -1.0
        node.attempt, node.status = attempt, "ok"
        reward = 1.0
        remaining = len(run.subtasks) - work.index - 1
        if self.lookahead and remaining > 0:
            reward = await self._rollout_reward(work, node, remaining, rollout)
        node.reward = reward
        self._publish(work, node)
        return reward

    async def _rollout_reward(self, work: StepWork, node: Node, remaining: int, chunks: list[str] | None = None) -> float:
        from ..llm.parsing import extract_code

        if chunks is None:
            ctx = work.context(lookahead=True, step_index=work.index + 1)
            ctx.accepted_code = ctx.accepted_code + [node.code]
            try:
                gen = await self.run.llm.complete(coder_messages(ctx), temperature=0.2, max_tokens=self.run.options.max_tokens * 2, expect="code")
            except Exception:
                return 1.0 / (remaining + 1)  # the node itself ran; no rollout to credit
            chunks = split_rollout(extract_code(gen.text) or "")[:remaining]
        if not chunks:
            return 1.0 / (remaining + 1)
        guards = [work.output_guard(work.index + i) for i in range(len(chunks) + 1)]
        trial = await self.run.kernel.trial(instrument(node.code, chunks, guards), timeout=self.run.options.trial_timeout)
        done = min((trial.stdout or "").count(STEP_MARK), len(chunks) + 1)  # the node's own marker counts as its step
        if done == len(chunks) + 1 and len(chunks) == remaining:
            node.rollout = chunks  # one runnable chunk per remaining step: a seed if this node is chosen
        return done / (len(chunks) + 1)

    def _keep_seeds(self, work: StepWork, node: Node) -> None:
        """Map the chosen node's completed rollout onto the next subtasks (by id, so a re-plan drops them)."""
        self._seeds.clear()
        following = self.run.subtasks[work.index + 1:]
        if not node.rollout or len(following) != len(node.rollout):
            return
        for i, (subtask, chunk) in enumerate(zip(following, node.rollout)):
            self._seeds[subtask.id] = (chunk, node.rollout[i + 1:])

    async def _try_seed(self, work: StepWork, root: Node) -> Node | None:
        """Evaluate this subtask's seed, if any, as root's first child; returns it."""
        seed = self._seeds.pop(work.subtask.id, None)
        if seed is None or not seed[0].strip():
            return None
        node = self._new_node(work, seed[0].strip("\n"), root, 1.0)
        reward = await self._evaluate(work, node, rollout=seed[1] or None)
        self._backpropagate(node, reward)
        return node

    # ----- the search ---------------------------------------------------------------------
    async def solve(self, index: int) -> Outcome:
        run = self.run
        work = StepWork(run, index)
        root = Node(id=f"{work.subtask.id}-root", code="")
        started, calls_at_start = time.monotonic(), run.llm.stats.calls
        nodes = 0
        best: Node | None = None
        seeded = await self._try_seed(work, root)
        if seeded is not None:
            nodes += 1
            if seeded.status == "ok":
                best = seeded
                if (seeded.reward or 0) >= 1.0:
                    return await self._commit(work, seeded, nodes)
        while True:
            if not root.expanded:
                await self._expand_root(work, root)
                if not root.children:
                    break
            node = self._select(root)
            if node is root or not self._budget_left(nodes, calls_at_start, started):
                break
            if node.status == "new":
                nodes += 1
                reward = await self._evaluate(work, node)
                self._backpropagate(node, reward)
                if node.status == "ok" and (best is None or (node.reward or 0) > (best.reward or 0)):
                    best = node
                if best is not None and (best.reward or 0) >= 1.0:
                    break
            elif node.status == "ok":
                # Re-selecting an executable node repeats its reward (the paper's repeated-executable case).
                self._backpropagate(node, node.reward or 0.0)
                if node.visits >= 3:
                    break
            elif node.status == "failed" and not node.expanded:
                outcome = await self._expand_failed(work, node)
                if outcome is not None:
                    return outcome
            else:
                break
        if best is None:
            failed = [n for n in _walk(root) if n.attempt is not None]
            last = failed[-1].attempt if failed else None
            return Outcome("needs_human", code=last.code if last else "", error=(last.error or "") if last else "no candidate code",
                           attempts=nodes)
        return await self._commit(work, best, nodes)

    async def _commit(self, work: StepWork, node: Node, nodes: int) -> Outcome:
        """Run the chosen code in the live kernel (the only code that touches the user's state)."""
        run = self.run
        from .events import Executed
        from .kernel_handle import summarize
        from . import codeinfo

        if not await run.approve(work.subtask.id, node.code):
            node.status = "failed"
            self._publish(work, node, "rejected by the user")
            return Outcome("needs_human", code=node.code, error=f"The user rejected this code: {run.last_rejection}", attempts=nodes)
        result = await run.kernel.execute(node.code, timeout=run.options.execute_timeout)
        warnings: list[str] = []
        if result.status == "ok":
            info = codeinfo.analyse(node.code)
            warnings = await work.check(info)
        run.emit(Executed(run_id=run.id, subtask_id=work.subtask.id, attempt=nodes, code=node.code, node_id=node.id,
                          result=summarize(result, warnings)))
        if result.status != "ok":
            node.status = "failed"
            self._publish(work, node, result.error.message if result.error else result.status)
            return Outcome("needs_human", code=node.code, error=result.error.message if result.error else result.status, attempts=nodes)
        node.status = "chosen"
        self._publish(work, node)
        self._keep_seeds(work, node)
        return Outcome("solved", code=node.code, result=result, warnings=warnings, attempts=nodes)


def _walk(node: Node):
    yield node
    for child in node.children:
        yield from _walk(child)
