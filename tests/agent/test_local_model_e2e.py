"""End to end with the real local model (Qwen2.5-Coder 0.5B through llama.cpp).

Slow (minutes on 2 cores): marked ``slow``; CI runs it. It checks that a real
model drives the whole loop on a dev-suite task — a plan, code proposed and run
in a real kernel, at least one step solved, a finished run with accounted
tokens — and grades the deliverable with the suite's general grader. The
score is reported, not asserted: a 0.5B model does not solve every task, and
the benchmark (not this test) measures quality.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geoagent_ext.agent.run import Run, RunOptions
from geoagent_ext.bench.grading import grade_task
from geoagent_ext.bench.suite import load_suite
from geoagent_ext.config import GeoAgentSettings
from geoagent_ext.llm.client import LLMClient
from geoagent_ext.llm.factory import make_chat_model
from geoagent_ext.llm.weights import get_spec, weights_available

from .helpers import real_kernel

# One task of the dev suite, vendored with its LICENSE and NOTICE so CI runs the real
# model without the suite beside the repository.
SUITE = Path(__file__).resolve().parents[1] / "data" / "geoagentbench-mini"
TASK = "dd-l1-capetown-clinics-bbox"
MODEL = "local:qwen2.5-coder-0.5b"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1500)]


def _model_ready(settings: GeoAgentSettings) -> bool:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        return False
    return weights_available(get_spec("qwen2.5-coder-0.5b"), settings.model_cache_dir)


async def test_local_model_runs_a_dev_task_end_to_end(tmp_path):
    settings = GeoAgentSettings()
    if not _model_ready(settings):
        pytest.fail("the local 0.5B model is not installed: run `bash scripts/install_local_model.sh 0.5b`")
    [task] = load_suite(SUITE, [TASK])
    workdir = task.prepare_workdir(tmp_path / "work")
    llm = LLMClient(make_chat_model(MODEL, settings), timeout=600)
    async with real_kernel(workdir) as kernel:
        run = Run(
            task.instruction,
            kernel=kernel,
            llm=llm,
            model_name=MODEL,
            options=RunOptions(max_attempts=3, on_stuck="skip", max_tokens=512),
            log_dir=tmp_path / "runs",
        )
        finished = await run.wait()
    events = run.bus.history
    kinds = [e.type for e in events]
    planned = next(e for e in events if e.type == "planned")
    assert len(planned.subtasks) >= 1
    assert "code_proposed" in kinds and "executed" in kinds
    executed = [e for e in events if e.type == "executed"]
    assert executed and all(e.result.status in ("ok", "error", "timeout") for e in executed)
    assert finished.type == "finished" and finished.status in ("succeeded", "partial"), finished.message
    assert finished.stats.llm_calls >= 2 and finished.stats.tokens_out > 0 and finished.stats.tokens_in > 0
    # The deliverable contract: stated from the request before the plan, checked on the real file.
    contract = next(e for e in events if e.type == "contract_stated").contract
    assert kinds.index("contract_stated") < kinds.index("planned")
    keys = next(r for r in contract.requirements if r.kind == "columns")
    assert keys.params["names"] == ["count", "bbox", "count_per_subdistrict"]
    final = [e for e in events if e.type == "requirement_checked" and e.subtask_id is None]
    assert {e.requirement_id for e in final} == {r.id for r in contract.checkable()}
    # The status is what the file shows: succeeded only when every requirement held on it.
    assert (finished.status == "succeeded") == all(e.passed for e in final), (finished.status, finished.unmet)
    report = grade_task(task.dir, workdir)
    solved = sum(1 for e in events if e.type == "solved" and e.by == "agent")
    summary = {
        "status": finished.status,
        "score": report.score,
        "steps": len(run.subtasks),
        "solved": solved,
        "requirements_met": sum(e.passed for e in final),
        "requirements": len(final),
        "llm_calls": finished.stats.llm_calls,
        "seconds": finished.stats.seconds,
    }
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    print("local-model e2e:", json.dumps(summary))
