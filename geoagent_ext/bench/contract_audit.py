"""The contract audit: is the contract a run derives from a request *sound* (every requirement that
gates ``succeeded`` holds on a correct deliverable) and does it *catch* known mistakes (a broken
deliverable fails at least one of those sound requirements)?

A case is a request with its inputs, one correct deliverable and some broken ones. For each case
the contract is derived exactly as a run derives it before planning (the rules, with what the
in-kernel probe reads of the inputs), then checked by the in-kernel checker on each deliverable
written beside the inputs. No model, no kernel: the checker's source runs in this process.

``benchmarks/contract_audit.py`` prints the tables; ``tests/contract/test_audit.py`` keeps the
figures from going back in CI.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from ..contract import Contract, Requirement, check_payload, derive_contract
from ..contract.proposed import accept_proposals, parse_proposals
from ..contract.reading import accept_reading, parse_reading

Writer = Callable[[Path], None]  # puts a deliverable set into the folder it is given
Answer = Callable[[str, list[str]], str]  # the model's answer for a request and its outputs
READERS = ("rules", "model", "both", "proposals")


@dataclass
class AuditCase:
    group: str  # "dev", "rewording", "corpus", "heldout", "heldout2": the table a case counts in
    name: str
    request: str
    outputs: list[str]
    inputs: list[Path]
    reference: Writer
    broken: dict[str, Writer] = field(default_factory=dict)


@dataclass
class CaseResult:
    case: AuditCase
    contract: Contract
    wrong: list[tuple[Requirement, str]]  # gating requirements the correct deliverable fails, with what was seen
    caught: dict[str, list[str]]  # broken deliverable -> ids of sound requirements it fails
    error: str = ""  # the audit itself could not run the case (an input or a writer failed)

    @property
    def sound(self) -> bool:
        return not self.wrong and not self.error

    @property
    def missed(self) -> list[str]:
        return [name for name, ids in self.caught.items() if not ids]


def copy_writer(folder: Path) -> Writer:
    """A writer that copies the files of ``folder`` (a benchmark's reference or broken outputs)."""

    def write(dest: Path) -> None:
        for p in folder.iterdir():
            if p.is_file():
                shutil.copy(p, dest / p.name)

    return write


def dev_cases(suite: Path, rewordings: Path | None = None, tasks: Iterable[str] | None = None) -> list[AuditCase]:
    """The suite's tasks (each with its reference and documented broken deliverables) and, when
    ``rewordings`` (a JSON of task id -> [requests]) is given, each rewording with the same files."""
    wanted = set(tasks) if tasks else None
    reworded = json.loads(rewordings.read_text()) if rewordings else {}
    cases = []
    for task_dir in sorted(p for p in suite.iterdir() if (p / "task.json").is_file()):
        if wanted is not None and task_dir.name not in wanted:
            continue
        task = json.loads((task_dir / "task.json").read_text())
        failures = task_dir / "reference" / "failures"
        broken = (
            {p.name: copy_writer(p / "outputs") for p in sorted(failures.iterdir()) if (p / "outputs").is_dir()}
            if failures.is_dir()
            else {}
        )
        common = dict(
            outputs=[o["name"] for o in task["expected_outputs"]],
            inputs=sorted((task_dir / "inputs").iterdir()),
            reference=copy_writer(task_dir / "reference" / "outputs"),
            broken=broken,
        )
        cases.append(AuditCase(group="dev", name=task_dir.name, request=task["instruction"], **common))
        for i, request in enumerate(reworded.get(task_dir.name, []), 1):
            cases.append(AuditCase(group="rewording", name=f"{task_dir.name}#{i}", request=request, **common))
    return cases


def corpus_case(entry, resolve: Callable[[str], Path], group: str = "corpus") -> AuditCase:
    """A corpus entry (``tests/contract/corpus``: writers that write into the current directory,
    input specs ``resolve`` turns into paths) as a case."""

    def in_folder(write: Callable[[], None]) -> Writer:
        return lambda folder: write()  # the auditor runs writers with the folder as the current directory

    return AuditCase(
        group=group,
        name=entry.id,
        request=entry.request,
        outputs=list(entry.outputs),
        inputs=[resolve(spec) for spec in entry.inputs],
        reference=in_folder(entry.reference),
        broken={name: in_folder(write) for name, write in entry.broken.items()},
    )


class Auditor:
    """Derives and checks contracts with the in-kernel helper loaded once in this process.

    ``reader``: "rules" (the contract a run derives), "model" (each output exists, plus what the
    model's reading adds that the request writes), "both" (the rules' contract plus what the reading
    adds beside it), "proposals" (the rules' contract plus the model's proposed sentences the rules
    keep, ``contract.proposed``); ``read``: the model's answer (a reading, or proposals);
    ``model_gates``: whether the reading's requirements gate (else shown, unsure)."""

    def __init__(self, reader: str = "rules", read: Answer | None = None, model_gates: bool = True) -> None:
        from ..kernel import inkernel

        if reader not in READERS or (reader != "rules" and read is None):
            raise ValueError(f"reader {reader!r} needs one of {READERS} and, beside the rules, a model")
        self.helper = inkernel.load()
        self.reader, self.read, self.model_gates = reader, read, model_gates

    def contract(self, case: AuditCase, facts: dict[str, dict]) -> Contract:
        """The case's contract as the chosen reader derives it."""
        rules = derive_contract(case.request, case.outputs, facts)
        if self.reader == "rules" or self.read is None:
            return rules
        answer = self.read(case.request, case.outputs)
        if self.reader == "proposals":
            kept, _ = accept_proposals(parse_proposals(answer, case.outputs), case.request, rules, facts)
            return rules.model_copy(update={"requirements": rules.requirements + kept})
        base = (
            rules
            if self.reader == "both"
            else rules.model_copy(update={"requirements": [r for r in rules.requirements if r.kind == "exists"]})
        )
        added, _ = accept_reading(parse_reading(answer), case.request, base, facts, sure=self.model_gates)
        return base.model_copy(update={"requirements": base.requirements + added})

    def audit(self, case: AuditCase) -> CaseResult:
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            try:
                return self._audit_in(Path(tmp), case)
            except Exception as exc:  # a case that cannot run is reported, never counted as sound
                return CaseResult(case, Contract(), [], {}, error=f"{type(exc).__name__}: {exc}")
            finally:
                os.chdir(cwd)

    def _audit_in(self, folder: Path, case: AuditCase) -> CaseResult:
        for p in case.inputs:
            shutil.copy(p, folder / p.name)
        names = {p.name for p in case.inputs}
        facts = self.helper.input_facts(sorted(names))
        contract = self.contract(case, facts)
        gating = {r.id: r for r in contract.requirements if r.checkable}
        payload = check_payload(contract)
        seen = self._checked(folder, case.reference, names, payload)
        wrong = [(gating[i], seen[i][1]) for i in gating if i in seen and not seen[i][0]]
        sound_ids = [i for i in gating if i in seen and seen[i][0]]
        caught = {}
        for name, writer in case.broken.items():
            broken_seen = self._checked(folder, writer, names, payload)
            caught[name] = [i for i in sound_ids if not broken_seen.get(i, (True, ""))[0]]
        return CaseResult(case, contract, wrong, caught)

    def _checked(
        self, folder: Path, writer: Writer, inputs: set[str], payload: list[dict]
    ) -> dict[str, tuple[bool, str]]:
        """{requirement id: (passed, observed)} on the deliverable ``writer`` leaves beside the inputs."""
        for left in [p for p in folder.iterdir() if p.name not in inputs]:  # the last deliverable's files
            shutil.rmtree(left) if left.is_dir() else left.unlink()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            writer(folder)
            answer = self.helper.check_contract(payload) if payload else []
        return {a["id"]: (bool(a["passed"]), str(a.get("observed", ""))) for a in answer if isinstance(a, dict)}


class CachedModelReader:
    """The model's answers -- its reading (``Planner.reading_answer``) or, with ``proposals``, its
    proposed sentences (``Planner.propose_requirements``' call) -- each kept in a JSON file keyed by
    the model, the prompt (and schema), the request and its outputs: a rerun reads the file.
    ``seconds``: what each call made now took."""

    def __init__(self, model: str, cache: Path, timeout: float = 180, proposals: bool = False) -> None:
        # resolved now: the auditor reads each case in a folder of its own
        self.model, self.path, self.proposals = model, cache.resolve(), proposals
        self.answers: dict[str, dict] = json.loads(cache.read_text()) if cache.is_file() else {}
        self.seconds: list[float] = []
        self.cached_seconds: list[float] = []
        self.timeout = timeout
        self._llm = None

    def key(self, request: str, outputs: list[str]) -> str:
        from ..agent.prompts import PROPOSER_SYSTEM, READER_SYSTEM
        from ..contract.reading import reading_schema

        asked = [PROPOSER_SYSTEM] if self.proposals else [READER_SYSTEM, reading_schema()]
        text = json.dumps([self.model, *asked, request, outputs], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def answer(self, request: str, outputs: list[str]) -> dict:
        """{"text", "seconds", "error"} for the request, from the file or from the model."""
        key = self.key(request, outputs)
        if key in self.answers:
            self.cached_seconds.append(float(self.answers[key].get("seconds") or 0))
            return self.answers[key]
        import asyncio

        from ..agent.planner import Planner
        from ..agent.prompts import proposer_messages
        from ..llm.client import LLMClient, LLMError

        if self._llm is None:
            from ..config import GeoAgentSettings

            settings = GeoAgentSettings()
            settings.model = self.model
            self._llm = LLMClient.from_settings(settings)
            self._llm.timeout = self.timeout
            self._llm.retries = 0
        started = time.perf_counter()
        try:
            asked = (
                self._llm.complete(proposer_messages(request, outputs), temperature=0.0, max_tokens=200)
                if self.proposals
                else Planner(self._llm).reading_answer(request, outputs)
            )
            generation = asyncio.run(asked)
            entry = {"text": generation.text, "error": "", "tokens_out": generation.tokens_out}
        except LLMError as exc:
            entry = {"text": "", "error": str(exc)[:300]}
        entry["seconds"] = round(time.perf_counter() - started, 2)
        entry["request"], entry["outputs"] = request[:200], outputs
        self.seconds.append(entry["seconds"])
        self.answers[key] = entry
        self.path.write_text(json.dumps(self.answers, indent=1, sort_keys=True))
        return entry

    def __call__(self, request: str, outputs: list[str]) -> str:
        return str(self.answer(request, outputs)["text"])


@dataclass
class GroupFigures:
    requests: int = 0
    sound: int = 0
    broken: int = 0
    caught: int = 0
    requirements: int = 0

    def row(self, group: str) -> str:
        share = f"{100 * self.caught / self.broken:.0f} %" if self.broken else "-"
        per = f"{self.requirements / self.requests:.1f}" if self.requests else "-"
        return f"| {group} | {self.sound} / {self.requests} | {self.caught} / {self.broken} ({share}) | {per} |"


def figures(results: list[CaseResult]) -> dict[str, GroupFigures]:
    by_group: dict[str, GroupFigures] = {}
    for r in results:
        g = by_group.setdefault(r.case.group, GroupFigures())
        g.requests += 1
        g.sound += r.sound
        g.requirements += sum(req.checkable for req in r.contract.requirements)
        g.broken += len(r.case.broken)
        g.caught += sum(bool(ids) for ids in r.caught.values())  # by requirements that hold on the correct one
    return by_group


def table(results: list[CaseResult]) -> str:
    lines = [
        "| requests | sound: every gating requirement holds on the correct deliverable | broken deliverables "
        "caught by a sound requirement | gating requirements per request |",
        "|---|---|---|---|",
    ]
    lines += [g.row(name) for name, g in figures(results).items()]
    return "\n".join(lines)


def details(results: list[CaseResult]) -> str:
    """Each wrong requirement with what the correct deliverable showed, and each missed mistake."""
    lines = []
    for r in results:
        if r.error:
            lines.append(f"{r.case.group} {r.case.name}: could not audit: {r.error}")
        for req, observed in r.wrong:
            lines.append(
                f"{r.case.group} {r.case.name}: WRONG {req.output}: {req.text} [{req.kind}] "
                f"-- seen on the correct file: {observed[:160]}"
            )
        if not r.error:
            for name in r.missed:
                lines.append(f"{r.case.group} {r.case.name}: missed {name}")
    return "\n".join(lines)
