"""The "GeoAgent" persona for Jupyter AI 3.x chats.

A message starts a run in the user's notebook (attached to the message, else
the one the frontend reported active), and the chat follows the run: plan, step
outcomes, "needs you" with a button to the panel, summary. While the run waits
for the user, a reply is a hint for the stuck step (or ``skip`` / ``cancel``);
after it finished, a message starts a new run that knows the previous request
and the code it left in the kernel.

The persona owns no agent logic: it uses the server's services (``services``),
the same run manager the REST API and the panel use, so a run started in the chat
shows in the panel and the other way round. Jupyter AI makes personas itself
(``Persona(parent=<the chat's PersonaManager>, chat=...)``), so nothing can be
passed to the constructor: GeoAgent's server extension binds its services on this
class when it starts (``app.py``), as Jupyter AI's Jupyternaut extension binds its
ConfigManager on ``JupyternautPersona``.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from jupyter_ai_persona_manager import BasePersona, PersonaDefaults
from jupyterlab_chat.models import Message
from pydantic import ValidationError

from ..redact import redact
from ..runs import ActionRequest, RunManagerError, StartRunRequest
from .follower import RunFollower
from .turns import (
    approval_action,
    attached_notebook,
    contract_action,
    follow_up_request,
    is_cancel,
    strip_mention,
    stuck_action,
)

if TYPE_CHECKING:
    from ..services import GeoAgentServices

AVATAR = Path(__file__).with_name("avatar.svg")
METADATA_KEY = "geoagent"  # chat metadata: {"run_id": the chat's latest run}

HELP = (
    "Tell me a geospatial analysis in plain words, e.g. *@GeoAgent count clinics per district "
    "from clinics.geojson and districts.gpkg and map it*. I plan it, write and run the code in "
    "your notebook's kernel, and fix what fails."
)
NO_NOTEBOOK = (
    "I work inside a notebook's kernel, and I don't know which one: open the notebook in JupyterLab "
    "(or attach it to your message) and ask again."
)


class GeoAgentPersona(BasePersona):
    services: ClassVar[GeoAgentServices | None] = None  # bound by the server extension; None: not enabled

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._followers: dict[str, RunFollower] = {}

    @property
    def defaults(self) -> PersonaDefaults:
        return PersonaDefaults(
            name="GeoAgent",
            description="Plans, writes, runs and repairs geospatial analyses in your notebook's own kernel.",
            avatar_path=str(AVATAR),
            system_prompt="GeoAgent turns plain-words geospatial requests into working code in the user's kernel.",
        )

    # ----- Jupyter AI entry points ---------------------------------------------------
    async def on_message(self, message: Message) -> None:
        """Act on ``cancel`` at once: messages are processed one at a time, so it would
        otherwise wait for the very run it is meant to stop."""
        if self.processing and is_cancel(strip_mention(message.body, self.name)):
            run = self._current_run()
            if run is not None and not run.done:
                run.cancel()
                return
        await super().on_message(message)

    async def process_message(self, message: Message) -> None:
        manager = self._run_manager()
        if manager is None:
            self.send_message(
                "GeoAgent's server extension is not enabled on this server "
                "(`jupyter server extension enable geoagent_ext`, then restart)."
            )
            return
        text = strip_mention(message.body, self.name)
        run = self._current_run(manager)
        if run is not None and not run.done:
            await self._reply_to_live_run(manager, run, text)
        elif not text:
            self.send_message(HELP)
        else:
            await self._start_run(manager, message, text)

    async def cancel_response(self) -> None:
        """The chat's stop button: stop the run this turn is following."""
        run = self._current_run()
        if run is not None and not run.done:
            run.cancel()

    async def handle_uncaught_exception(self, exc: Exception) -> None:
        """Short and redacted: the default puts a whole traceback in the chat."""
        self.send_message(
            f"Something went wrong on my side: `{html.escape(redact(f'{type(exc).__name__}: {exc}'))[:300]}` "
            "(details are in the server log)."
        )

    # ----- turns --------------------------------------------------------------------
    async def _start_run(self, manager: Any, message: Message, text: str) -> None:
        previous = self._previous_state(manager)
        notebook = (
            attached_notebook(message.attachments, self._attachments())
            or manager.active_notebook
            or (previous or {}).get("notebook")
        )  # a follow-up goes where the last run went
        if not notebook:
            self.send_message(NO_NOTEBOOK)
            return
        if previous and previous.get("notebook") != notebook:
            previous = None  # another notebook has another kernel: the old code is not there
        try:
            body = StartRunRequest(request=follow_up_request(text, previous), notebook_path=notebook)
            run = await manager.start(body)
        except ValidationError:
            self.send_message("That request is too long for me; please shorten it.")
            return
        except RunManagerError as exc:
            self.send_message(f"I couldn't start in `{html.escape(notebook)}`: {html.escape(redact(str(exc)))}")
            return
        self._remember(run.id)
        follower = self._follow(run, quiet=False)
        await follower.wait_pause()

    async def _reply_to_live_run(self, manager: Any, run: Any, text: str) -> None:
        follower = self._follow(run, quiet=True)
        waiting = run.waiting_for
        if waiting is None:
            if is_cancel(text):
                follower.resume()
                run.cancel()
                await follower.wait_pause()
            else:
                self.send_message(
                    f"I'm still working on run `{run.id}`; I'll post here when it needs you or is done. "
                    "Say `cancel` to stop it."
                )
            return
        if not text:
            self.send_message(
                {
                    "stuck": "The run is waiting for you: reply with a hint, `skip` or `cancel`.",
                    "contract": "The run is waiting for you to confirm what the output must satisfy: "
                    "`approve`, or reply with requirements to add (one per line).",
                }.get(waiting["kind"], "The run is waiting for you: `approve`, or say what to change.")
            )
            return
        requirements = None
        if waiting["kind"] == "contract":
            kind, requirements = contract_action(text, run.contract.model_dump() if run.contract else None)
            detail = ""
        else:
            kind, detail = (stuck_action if waiting["kind"] == "stuck" else approval_action)(text)
        follower.resume()
        if kind == "cancel":
            run.cancel()
        else:
            try:
                manager.act(
                    run.id,
                    ActionRequest(kind=kind, subtask_id=waiting["subtask_id"], text=detail, requirements=requirements),
                )
            except (RunManagerError, ValidationError) as exc:
                self.send_message(f"That didn't reach the run: {html.escape(redact(str(exc)))[:300]}")
                return
        await follower.wait_pause()

    # ----- plumbing -----------------------------------------------------------------
    def _run_manager(self) -> Any:
        return self.services.run_manager if self.services is not None else None

    def _attachments(self) -> dict[str, Any]:
        try:
            return self.chat.get_attachments()
        except Exception:
            return {}

    def _remember(self, run_id: str) -> None:
        """In the chat's metadata, so a reloaded chat (new persona instance) still finds its run."""
        self.chat.set_metadata(METADATA_KEY, {"run_id": run_id})

    def _run_id(self) -> str | None:
        try:
            return (self.chat.get_metadata().get(METADATA_KEY) or {}).get("run_id")
        except Exception:
            return None

    def _current_run(self, manager: Any = None) -> Any:
        manager = manager or self._run_manager()
        run_id = self._run_id()
        return manager.get(run_id) if manager is not None and run_id else None

    def _previous_state(self, manager: Any) -> dict[str, Any] | None:
        run_id = self._run_id()
        if not run_id:
            return None
        try:
            return manager.state(run_id)
        except RunManagerError:
            return None

    def _follow(self, run: Any, quiet: bool) -> RunFollower:
        """The run's follower; a new one replays quietly what an earlier instance already posted."""
        follower = self._followers.get(run.id)
        if follower is None or follower.done:
            seen = run.bus.history[-1].seq if quiet and run.bus.history else 0
            follower = self._followers[run.id] = RunFollower(self, run, quiet_until=seen)
        return follower

    async def shutdown(self) -> None:
        """Stop posting (runs go on: they belong to the server, and the panel still shows them)."""
        for follower in self._followers.values():
            follower.task.cancel()
        await super().shutdown()
