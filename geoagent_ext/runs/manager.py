"""Owns the server's agent runs: starts them on users' kernels, finds them, persists them.

Runs outlive browser tabs (they live here, not in the page) and their logs outlive
the server: a registry file in the data dir maps run ids to their JSONL logs, so
after a restart every run is still listed and a run cut off mid-way shows as
"interrupted" with its log intact.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ..agent.events import Event
from ..agent.kernel_handle import BoundKernel
from ..agent.run import HumanAction, Run, RunOptions
from ..agent.runlog import read_events
from ..agent.state import fold
from ..kernel import KernelNotFoundError, KernelService, kernel_for_notebook
from ..llm.choices import ChatModels
from ..llm.client import LLMClient
from .schemas import ActionRequest, DeleteVariablesRequest, StartRunRequest


class RunManagerError(Exception):
    """A request the manager cannot honour; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class RunManager:
    """The server's runs on its kernels, with the chat models and knowledge index the process
    shares (``GeoAgentServices`` hands them in; this layer never imports the services)."""

    def __init__(
        self,
        settings: Any,
        kernels: KernelService,
        models: ChatModels,
        knowledge_index: Callable[[], Awaitable[Any]],
        *,
        session_manager: Any = None,
        root_dir: str | os.PathLike | None = None,
    ):
        self.settings = settings
        self.kernels = kernels
        self.kernel_manager = kernels.kernel_manager
        self.session_manager = session_manager  # finds a notebook's kernel (server only)
        self.models = models
        self.knowledge_index = knowledge_index
        self.root_dir = Path(root_dir or os.getcwd())
        self.runs: dict[str, Run] = {}
        self._starting: set[str] = set()  # kernels claimed by a run that is being set up (see _claim)
        self.registry = Path(self.settings.data_dir) / "runs" / "registry.jsonl"
        self.active_notebook: str | None = None  # reported by the frontend (POST /geoagent/active-notebook)

    # ----- building blocks ----------------------------------------------------------
    async def kernel_for(self, notebook_path: str | None = None, kernel_id: str | None = None) -> str:
        """The kernel a request means: ``kernel_id``, else the session kernel of ``notebook_path``
        (runs and the MCP tools address kernels the same way)."""
        if kernel_id:
            if kernel_id not in self.kernel_manager:
                raise RunManagerError(404, f"no running kernel {kernel_id!r}")
            return kernel_id
        if notebook_path:
            if self.session_manager is None:
                raise RunManagerError(400, "this server has no session manager; pass kernel_id")
            try:
                return await kernel_for_notebook(notebook_path, self.session_manager)
            except KernelNotFoundError as exc:
                raise RunManagerError(409, str(exc)) from None
        raise RunManagerError(400, "give notebook_path (an open notebook) or kernel_id")

    def _log_dir(self, notebook_path: str | None) -> Path:
        if self.settings.runs_dir:
            return Path(self.settings.runs_dir)
        if notebook_path:
            folder = (self.root_dir / notebook_path).parent
            if folder.resolve().is_relative_to(self.root_dir.resolve()):
                return folder / ".geoagent" / "runs"
        return Path(self.settings.data_dir) / "runs" / "logs"

    def _register(self, run: Run) -> None:
        self.registry.parent.mkdir(parents=True, exist_ok=True)
        with open(self.registry, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"run_id": run.id, "log": str(run.log.path) if run.log else None}) + "\n")

    def _registered(self) -> dict[str, Path]:
        found: dict[str, Path] = {}
        if self.registry.exists():
            for line in self.registry.read_text(encoding="utf-8").splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                if entry.get("log"):
                    found[entry["run_id"]] = Path(entry["log"])
        return found

    # ----- API --------------------------------------------------------------------------
    def _claim(self, kernel_id: str) -> None:
        """Reserve ``kernel_id`` for a run being started, or 409. Check and reservation are
        one step with no await between them: two requests for one kernel (a double-click)
        interleave at every await of ``start``, and both would pass a check made before
        the run is registered."""
        for other in self.runs.values():
            if other.kernel_id == kernel_id and not other.done:
                raise RunManagerError(409, f"run {other.id} is still working on this kernel; cancel it or wait")
        if kernel_id in self._starting:
            raise RunManagerError(409, "another run is starting on this kernel; cancel it or wait")
        self._starting.add(kernel_id)

    async def start(self, body: StartRunRequest) -> Run:
        kernel_id = await self.kernel_for(body.notebook_path, body.kernel_id)
        spec = self.models.model_spec(body.model)
        self._claim(kernel_id)
        try:  # every way out releases the reservation; a started run holds the kernel from here on
            run = await self._new_run(body, kernel_id, spec)
            self._register(run)
            self.runs[run.id] = run
            run.start()
        finally:
            self._starting.discard(kernel_id)
        return run

    async def _new_run(self, body: StartRunRequest, kernel_id: str, spec: str) -> Run:
        llm = LLMClient(await self.models.chat_model(spec), timeout=self.settings.llm_timeout)
        index = await self.knowledge_index()
        options = RunOptions.from_settings(
            self.settings,
            strategy=body.strategy,
            search_steps=body.search_steps,
            max_attempts=body.max_attempts,
            approval_mode=body.approval_mode,
        )
        try:
            return Run(
                body.request,
                kernel=BoundKernel(self.kernels, kernel_id),
                llm=llm,
                model_name=spec,
                knowledge_index=index,
                options=options,
                log_dir=self._log_dir(body.notebook_path),
                notebook=body.notebook_path,
                kernel_id=kernel_id,
            )
        except ValueError as exc:
            raise RunManagerError(400, str(exc)) from None

    def get(self, run_id: str) -> Run | None:
        return self.runs.get(run_id)

    def events(self, run_id: str, after: int = 0) -> list[Event]:
        run = self.runs.get(run_id)
        if run is not None:
            return [e for e in run.bus.history if e.seq > after]
        path = self._registered().get(run_id)
        if path is None:
            raise RunManagerError(404, f"no run {run_id!r}")
        return [e for e in read_events(path) if e.seq > after]

    def state(self, run_id: str) -> dict[str, Any]:
        run = self.runs.get(run_id)
        if run is not None:
            return fold(run.bus.history, live=not run.done)
        return fold(self.events(run_id), live=False)

    def list(self) -> list[dict[str, Any]]:
        states = {rid: fold(run.bus.history, live=not run.done) for rid, run in self.runs.items()}
        for rid, path in self._registered().items():
            if rid not in states and path.exists():
                states[rid] = fold(read_events(path), live=False)
        rows = [s for s in states.values() if s["run_id"]]
        return sorted(rows, key=lambda s: s["started"] or "", reverse=True)

    def act(self, run_id: str, body: ActionRequest) -> None:
        run = self._live(run_id)
        try:
            run.submit(HumanAction(**body.model_dump()))
        except ValueError as exc:
            raise RunManagerError(409, str(exc)) from None

    async def delete_variables(self, run_id: str, body: DeleteVariablesRequest) -> dict[str, Any]:
        """Undo a finished run in its kernel: delete the variables it created that are still as
        it left them. Never while a run works on that kernel (its steps may need them, and a
        deletion between its commit and its check would be a race); the kernel service
        serialises the call with every other one on the kernel. Variables the run changed or
        deleted are only named: their old values are gone."""
        state = self.state(run_id)
        kernel_id = state["kernel_id"]
        if not kernel_id or kernel_id not in self.kernel_manager:
            raise RunManagerError(409, f"the kernel of run {run_id} is not running anymore: its variables went with it")
        busy = next((r for r in self.runs.values() if r.kernel_id == kernel_id and not r.done), None)
        if busy is not None or kernel_id in self._starting:
            raise RunManagerError(
                409,
                f"run {busy.id if busy else '(starting)'} is working on this kernel; "
                "delete variables once it has finished",
            )
        created: dict[str, str] = state["variables"]["created"]
        unknown = sorted(set(body.names or []) - set(created))
        if unknown:
            raise RunManagerError(400, f"run {run_id} did not create {', '.join(unknown)}")
        expected = {n: created[n] for n in (body.names if body.names is not None else created)}
        try:
            answer = (
                await self.kernels.delete_variables(kernel_id, expected) if expected else {"deleted": [], "kept": {}}
            )
        except Exception as exc:  # busy kernel, dead kernel, probe failure: say it, never a 500
            raise RunManagerError(409, f"could not delete the variables: {exc}") from None
        return {
            "run_id": run_id,
            **answer,
            "changed": state["variables"]["changed"],
            "deleted_by_run": state["variables"]["deleted"],
        }

    def cancel(self, run_id: str) -> None:
        self._live(run_id).cancel()

    def _live(self, run_id: str) -> Run:
        run = self.runs.get(run_id)
        if run is None:
            if run_id in self._registered():
                raise RunManagerError(409, f"run {run_id} is not running anymore")
            raise RunManagerError(404, f"no run {run_id!r}")
        if run.done:
            raise RunManagerError(409, f"run {run_id} has finished")
        return run

    async def shutdown(self) -> None:
        """Cancel live runs and give them 10 s to end (the kernels belong to the services)."""
        for run in self.runs.values():
            run.cancel()
        pending = [run._task for run in self.runs.values() if run._task is not None]
        if pending:
            await asyncio.wait(pending, timeout=10)
