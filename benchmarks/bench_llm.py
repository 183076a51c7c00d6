"""Local model speed: generation, prompt reading, and what prefix reuse saves.

    python benchmarks/bench_llm.py            # 0.5B
    python benchmarks/bench_llm.py --big      # 1.5B

Calls, in order, on one engine:
  1. cold:  a ~1500-token prefix + question 1 (nothing cached)
  2. warm:  the same prefix + question 2 (the live KV cache holds the prefix)
  3. other: a different ~1500-token prefix (evicts prefix 1 from the live KV)
  4. back:  prefix 1 + question 3, restored from the saved-state store
  5. back without the store (disabled), for comparison
prefix_cache_speedup = prompt seconds of (1) / (2). Figures are printed last, one per line.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from geoagent_ext.llm.llama_engine import GenerationStats, get_engine  # noqa: E402
from geoagent_ext.llm.weights import ensure_weights  # noqa: E402

FUNCS = [
    (
        "geopandas.read_file",
        "filename, layer=None, bbox=None, engine=None",
        "Read a vector file into a GeoDataFrame.",
    ),
    (
        "GeoDataFrame.to_crs",
        "crs=None, epsg=None, inplace=False",
        "Reproject every geometry to a new CRS.",
    ),
    (
        "GeoDataFrame.sjoin",
        "df, how='inner', predicate='intersects'",
        "Spatial join of two GeoDataFrames.",
    ),
    (
        "GeoDataFrame.dissolve",
        "by=None, aggfunc='first', as_index=True",
        "Dissolve geometries by a column.",
    ),
    ("GeoSeries.area", "", "Area of each geometry in the units of the CRS."),
    ("GeoSeries.buffer", "distance, resolution=16", "Buffer each geometry by a distance."),
    ("rasterio.open", "fp, mode='r', driver=None", "Open a raster dataset."),
    (
        "DatasetReader.read",
        "indexes=None, masked=False, window=None",
        "Read raster bands as arrays.",
    ),
    (
        "rioxarray.open_rasterio",
        "filename, masked=False, chunks=None",
        "Open a raster as a DataArray.",
    ),
    ("DataArray.rio.reproject", "dst_crs, resolution=None, resampling=0", "Reproject a raster."),
]


def prefix_text(engine, tag: str, target_tokens: int) -> str:
    """A system prompt of API notes (like the retrieved docs the agent sends), ~target tokens."""
    lines = [f"You write Python for geospatial analysis ({tag}). API notes:"]
    i = 0
    while True:
        name, sig, doc = FUNCS[i % len(FUNCS)]
        lines.append(f"- {name}({sig}): {doc} Example {tag}-{i}: result_{i} = {name.split('.')[-1]}(...)")
        i += 1
        if len(engine.tokenize("\n".join(lines))) >= target_tokens:
            return "\n".join(lines)


def call(engine, system: str, question: str, max_tokens: int) -> GenerationStats:
    messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]
    *_, stats = engine.stream(messages, max_tokens=max_tokens, temperature=0.0, seed=1)
    return stats


def show(label: str, s: GenerationStats) -> None:
    print(
        f"{label:<28} tokens_in={s.tokens_in:5d} cached={s.cached_tokens:5d} "
        f"(restored {s.restored_tokens:5d}) prompt_s={s.prompt_seconds:7.2f} "
        f"out={s.tokens_out:4d} gen_s={s.generation_seconds:6.2f} save_s={s.save_seconds:5.3f} "
        f"logprob={s.logprob:8.2f}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="use the 1.5B model")
    parser.add_argument("--prefix-tokens", type=int, default=1500)
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args()

    model_id = "qwen2.5-coder-1.5b" if args.big else "qwen2.5-coder-0.5b"
    cache = os.environ.get("GEOAGENT_MODEL_DIR") or os.path.expanduser("~/.cache/geoagent/models")
    t0 = time.perf_counter()
    engine = get_engine(ensure_weights(model_id, cache))
    print(
        f"model={model_id} n_ctx={engine.n_ctx} threads={engine.llm.n_threads} "
        f"load_s={time.perf_counter() - t0:.2f} loadavg={os.getloadavg()[0]:.1f}",
        flush=True,
    )

    sys_a = prefix_text(engine, "notes A", args.prefix_tokens)
    sys_b = prefix_text(engine, "notes B", args.prefix_tokens)
    q = [
        "Write Python that reads parcels.gpkg and prints the total area in km2 after reprojecting to EPSG:3035.",
        "Write Python that buffers the points in clinics.geojson by 500 m and saves them.",
        "Write Python that counts clinics per district with a spatial join.",
    ]
    cold = call(engine, sys_a, q[0], args.max_tokens)
    show("1 cold", cold)
    warm = call(engine, sys_a, q[1], args.max_tokens)
    show("2 warm (same prefix)", warm)
    show("3 other prefix", call(engine, sys_b, q[0], 8))
    back = call(engine, sys_a, q[2], 8)
    show("4 back, saved-state store", back)
    call(engine, sys_b, q[0], 8)
    store, engine.state_cache = engine.state_cache, None
    back_plain = call(engine, sys_a, q[2], 8)
    show("5 back, without store", back_plain)
    engine.state_cache = store

    gen_tokens = cold.tokens_out + warm.tokens_out
    gen_seconds = cold.generation_seconds + warm.generation_seconds
    fresh = cold.tokens_in - cold.cached_tokens
    print(f"alternating_prefix_restore_speedup={back_plain.prompt_seconds / back.prompt_seconds:.1f}")
    print(f"tokens_per_s={gen_tokens / gen_seconds:.1f}")
    print(f"prompt_tokens_per_s={fresh / cold.prompt_seconds:.1f}")
    print(f"prefix_cache_speedup={cold.prompt_seconds / warm.prompt_seconds:.1f}")


if __name__ == "__main__":
    main()
