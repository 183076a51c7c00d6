"""Inline suggestions: time to the first suggestion token, 0.5B vs 1.5B, idle and during a run.

    python benchmarks/bench_inline.py [--samples 10] [--no-shared] [--models 0.5b,1.5b]
                                      [--run-model local:qwen2.5-coder-1.5b]

The real path: ``Completer.stream`` over ``GeoAgentServices`` (no kernel, no index), the
inline model as its own instance, loaded first (``load_s``: what turning suggestions on,
or else the first suggestion, pays). "During a run" means the run's instance of the main
model (``--run-model``, the 1.5B) is busy the whole time with run-like calls: a
~1500-token prompt of API notes that changes at its start (so each call reads it all)
and up to 128 generated tokens, back to back. Each sample is one pause in typing: a
longer prefix of a cell than the sample before (each condition's first one a cold
prompt), the suggestion stopped at its first visible text (as typing on would); "token"
is the model's first token, "text" the first text shown (after a fence and any echo of
the line). Conditions:

  inline 0.5B / 1.5B, idle        the inline instance alone
  inline 0.5B / 1.5B, during run  the inline instance next to the run's instance
  shared, during run              (unless --no-shared) suggestions on the run's own
                                  instance, as before the inline model: they queue

A model that is not installed is not measured (said so). Figures are printed last as
name=value (seconds; p50 and p90 of each condition, p90 the nearest rank). On a loaded
machine compare the ratios within one run, not the absolute figures.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import math
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_llm import prefix_text  # noqa: E402

from geoagent_ext.completion import service  # noqa: E402
from geoagent_ext.completion.service import Completer, CompletionRequest, Suggestion  # noqa: E402
from geoagent_ext.config import GeoAgentSettings  # noqa: E402
from geoagent_ext.llm.choices import local_state  # noqa: E402
from geoagent_ext.llm.client import LLMClient, LLMTimeout  # noqa: E402
from geoagent_ext.services import GeoAgentServices, LazyKnowledgeIndex  # noqa: E402

MAIN = "local:qwen2.5-coder-1.5b"
SMALL = "local:qwen2.5-coder-0.5b"
PREVIOUS = [
    "import geopandas as gpd\nimport pandas as pd",
    "parcels = gpd.read_file('parcels.gpkg')\nclinics = gpd.read_file('clinics.geojson')",
    "parcels = parcels.to_crs(epsg=3035)\nclinics = clinics.to_crs(parcels.crs)",
]
CELLS = [
    "buffered = clinics.buffer(500)\n"
    "near = gpd.sjoin(parcels, gpd.GeoDataFrame(geometry=buffered), predicate='intersects')",
    "parcels['area_km2'] = parcels.geometry.area / 1e6\nlarge = parcels[parcels['area_km2'] > 2]",
    "counts = near.groupby('district').size().rename('clinics')\ncounts.to_csv('clinics_per_district.csv')",
]


def typing_pauses(samples: int) -> list[str]:
    """Cell prefixes at the pauses of someone typing the cells above, in order."""
    pauses = []
    for cell in CELLS:
        for cut in range(14, len(cell), 11):
            pauses.append(cell[:cut])
    step = max(1, len(pauses) // samples)
    return pauses[::step][:samples]


@functools.cache
def installed(spec: str, settings: GeoAgentSettings) -> bool:
    """Whether a local model can run here; says so when it cannot (its figures: not measured)."""
    ready, detail = local_state(spec.split(":", 1)[1], settings)
    if not ready:
        print(f"not measured: {spec} ({detail})", flush=True)
    return ready


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def first_text(completer: Completer, label: str, before: str) -> tuple[float, float]:
    """Seconds until the model's first token and the suggestion's first visible text
    (after its fence and any echo of the line); stops it there, like typing on. The
    label heads the earlier cells, so each condition starts from a cold prompt."""
    request = CompletionRequest(cell_text_before=before, previous_cells=[f"# {label}", *PREVIOUS])
    suggestion = Suggestion()
    started = time.perf_counter()
    stream = completer.stream(request, suggestion)
    try:
        async for _ in stream:
            break
    except LLMTimeout:  # queued past the completer's timeout: counts as that long
        pass
    finally:
        await stream.aclose()
    elapsed = time.perf_counter() - started
    return suggestion.first_token_s or elapsed, elapsed


class RunLoad:
    """Run-like calls on the main model's run instance, back to back, until stopped."""

    def __init__(self, services: GeoAgentServices, spec: str):
        self.services, self.spec = services, spec
        self.task: asyncio.Task | None = None
        self.client: LLMClient | None = None
        self.engine = None

    async def start(self) -> None:
        model = await self.services.chat_model(self.spec)
        self.engine = await asyncio.to_thread(model.engine)
        notes = await asyncio.to_thread(prefix_text, self.engine, "run", 1500)
        self.client = LLMClient(model, timeout=600, retries=0)
        self.task = asyncio.ensure_future(self._loop(notes))
        await asyncio.sleep(3)  # the first call is reading its prompt

    async def _loop(self, notes: str) -> None:
        for i in range(10**6):
            messages = [("system", f"Call {i}. {notes}"), ("user", "Write Python that counts clinics per district.")]
            await self.client.complete(messages, max_tokens=128, on_text=lambda _: None)

    def busy(self) -> bool:
        """Whether a run call holds the main model right now (reading its prompt or generating)."""
        return self.engine.lock.locked()

    async def stop(self) -> None:
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)


async def measure(services: GeoAgentServices, label: str, pauses: list[str], run_model: str | None) -> dict[str, float]:
    """The condition's figures; ``run_model`` busy with run-like calls meanwhile, if given."""
    completer = Completer(services.settings, services.kernels, services, services.knowledge.get)  # a fresh one
    started = time.perf_counter()
    await completer.warm()
    load_s = time.perf_counter() - started  # seconds only the first condition of a model pays
    load = RunLoad(services, run_model) if run_model else None
    if load:
        await load.start()
    tokens, texts, busy = [], [], []
    try:
        for before in pauses:
            if load:
                busy.append(load.busy())
            token, text = await first_text(completer, label, before)
            tokens.append(token)
            texts.append(text)
            print(
                f"{label:<24} token {token:6.2f} s  text {text:6.2f} s  {before.splitlines()[-1][-36:]!r}", flush=True
            )
            await asyncio.sleep(0.3)  # the user types on
    finally:
        if load:
            await load.stop()
    figures = {
        "load_s": load_s,
        "token_p50": quantile(tokens, 0.5),
        "token_p90": quantile(tokens, 0.9),
        "text_p50": quantile(texts, 0.5),
        "text_p90": quantile(texts, 0.9),
    }
    if busy:  # the share of samples that started while a run call held the main model
        figures["run_busy_share"] = sum(busy) / len(busy)
    return figures


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--no-shared", action="store_true", help="skip the queued (shared-instance) baseline")
    parser.add_argument("--models", default="0.5b,1.5b", help="inline model sizes to measure")
    parser.add_argument("--run-model", default=MAIN, help="the run's model, busy during the 'during run' conditions")
    args = parser.parse_args()
    pauses = typing_pauses(args.samples)
    run_model = args.run_model
    settings = GeoAgentSettings(model=run_model, data_dir=tempfile.mkdtemp(prefix="bench-inline-"))
    # Suggestions without API docs: the model's time is what we measure.
    services = GeoAgentServices(settings, kernel_manager={}, knowledge=LazyKnowledgeIndex(settings, enabled=False))
    print(
        f"loadavg={os.getloadavg()[0]:.1f} cpus={os.cpu_count()} samples={len(pauses)} run_model={run_model}",
        flush=True,
    )
    run_ready = installed(run_model, settings)
    results: dict[str, dict[str, float]] = {}
    for size in args.models.split(","):
        spec = f"local:qwen2.5-coder-{size}"
        if not installed(spec, settings):
            continue
        settings.inline_model = spec
        results[f"inline_{size}_idle"] = await measure(services, f"{size} idle", pauses, None)
        if run_ready:
            results[f"inline_{size}_run"] = await measure(services, f"{size} during run", pauses, run_model)
    if not args.no_shared and run_ready:
        settings.inline_model = run_model
        service.INSTANCE = ""  # the run's own instance: how suggestions worked before inline_model
        results["shared_run"] = await measure(services, "shared, during run", pauses[:3], run_model)
    print(f"loadavg_end={os.getloadavg()[0]:.1f}")
    for name, figures in results.items():
        for key, value in figures.items():
            print(f"{name}_{key}={value:.2f}")


if __name__ == "__main__":
    asyncio.run(main())
