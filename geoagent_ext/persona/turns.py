"""Reading a chat message: which notebook it is about, and what a reply to a waiting run means.

Pure functions over plain data, so the rules are testable without a chat.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

CANCEL_WORDS = {"cancel", "stop", "abort"}
SKIP_WORDS = {"skip"}
APPROVE_WORDS = {"approve", "approved", "yes", "y", "ok", "okay", "go", "run", "lgtm"}
MAX_CONTEXT_CODE = 4000


def strip_mention(body: str, name: str) -> str:
    """The message without ``@GeoAgent`` (the chat input puts it in front)."""
    text = re.sub(rf"(?<![\w-])@{re.escape(name)}\b:?", " ", body or "", flags=re.IGNORECASE)
    return re.sub(r"[ \t]{2,}", " ", text).strip()


def first_word(text: str) -> str:
    words = re.findall(r"[a-z]+", text.lower())
    return words[0] if words else ""


def is_cancel(text: str) -> bool:
    return first_word(text) in CANCEL_WORDS and len(text.split()) <= 3


def attached_notebook(attachment_ids: Iterable[str] | None, attachments: dict[str, Any]) -> str | None:
    """The first notebook attached to the message (a notebook attachment or a file ending .ipynb)."""
    for att_id in attachment_ids or []:
        att = attachments.get(att_id)
        value = getattr(att, "value", None) or (att.get("value") if isinstance(att, dict) else None)
        kind = getattr(att, "type", None) or (att.get("type") if isinstance(att, dict) else None)
        if value and (kind == "notebook" or str(value).endswith(".ipynb")):
            return str(value).strip("/")
    return None


def stuck_action(text: str) -> tuple[str, str]:
    """Reply to a stuck step -> (kind, text): ("cancel"|"skip"|"hint", text)."""
    word = first_word(text)
    if is_cancel(text):
        return "cancel", ""
    if word in SKIP_WORDS and len(text.split()) <= 6:
        return "skip", text
    return "hint", text


def approval_action(text: str) -> tuple[str, str]:
    """Reply to an approval request -> ("cancel"|"approve"|"reject", feedback)."""
    if is_cancel(text):
        return "cancel", ""
    if first_word(text) in APPROVE_WORDS and len(text.split()) <= 3:
        return "approve", ""
    return "reject", re.sub(r"^\s*(reject(ed)?|no)\b[:,]?\s*", "", text, flags=re.IGNORECASE) or text


def contract_action(text: str, contract: dict[str, Any] | None) -> tuple[str, list[dict] | None]:
    """Reply to a contract review -> ("cancel"|"approve"|"contract", requirements as left).

    Anything but approve/cancel adds each line as a requirement of the output it names (the
    only output when it names none); editing or deleting one is the panel's job."""
    if is_cancel(text):
        return "cancel", None
    if first_word(text) in APPROVE_WORDS and len(text.split()) <= 3:
        return "approve", None
    contract = contract or {}
    outputs = [o["path"] for o in contract.get("outputs", [])]
    edits = [{"id": r["id"], "output": r["output"], "text": r["text"]} for r in contract.get("requirements", [])]
    for line in (raw.strip(" -*\t") for raw in text.splitlines()):
        if not line:
            continue
        named = [o for o in outputs if o in line or o.rsplit("/", 1)[-1] in line]
        target = named[0] if named else (outputs[0] if len(outputs) == 1 else None)
        if target:
            edits.append({"output": target, "text": line})
    return "contract", edits


def follow_up_request(text: str, previous: dict[str, Any] | None) -> str:
    """A new request that carries the previous run's request and accepted code.

    Runs start fresh (plan, context), so a follow-up like "now map it" needs to
    know what "it" is: the previous request and the code that already ran in
    the kernel (its variables exist there). The new words come first so lists
    and the panel show them.
    """
    if not previous or not previous.get("request"):
        return text
    code = "\n\n".join(
        s["code"].strip() for s in previous.get("subtasks", []) if s.get("status") == "solved" and s.get("code")
    )
    if len(code) > MAX_CONTEXT_CODE:
        code = "...\n" + code[-MAX_CONTEXT_CODE:]
    context = f'This follows my previous request: "{previous["request"].strip()[:1500]}".'
    if code:
        context += f" Its code already ran in the kernel, so its variables exist:\n```python\n{code}\n```"
    return f"{text}\n\n{context}"
