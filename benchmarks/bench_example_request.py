"""An example notebook's request, run the way the panel runs it, compared with its worked solution.

The panel posts the request with the active notebook's path to ``/geoagent/runs`` and follows
the run's events; this does the same against a real ``jupyter server`` on a copy of
``examples/`` (the notebook's set-up cell run first in its kernel, as the notebook asks), then
reruns the notebook's worked solution on another copy and compares the deliverable. The cells
the panel writes into the notebook are the frontend's part and are not exercised here.

Usage: python benchmarks/bench_example_request.py [--notebook 01_vector_areas_per_district.ipynb]
       [--output outputs/district_summary.csv] [--model local:qwen2.5-coder-1.5b] [--timeout 1500] [--keep-log DIR]
Not a test: one run, figures printed last as name=value.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
import pandas as pd
from jupyter_client import BlockingKernelClient, find_connection_file

ROOT = Path(__file__).resolve().parents[1]
JUPYTER = Path(sys.executable).with_name("jupyter")


def request_of(nb) -> str:
    """The request the notebook suggests: the first block quote under "Ask GeoAgent"."""
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "Ask GeoAgent" in cell.source:
            quote = re.search(r"^> (.+)$", cell.source, re.MULTILINE)
            if quote:
                return quote.group(1).strip()
    raise SystemExit("the notebook suggests no request")


def code_cells(nb, after: str) -> list[str]:
    """Code cells after the markdown cell containing ``after`` (the set-up is before "Ask GeoAgent")."""
    seen, out = False, []
    for cell in nb.cells:
        if cell.cell_type == "markdown" and after in cell.source:
            seen = True
        elif seen and cell.cell_type == "code" and not cell.source.startswith("%matplotlib"):
            out.append(cell.source)
    return out


def worked_solution(folder: Path, nb) -> None:
    """Run the set-up and the worked solution (plots left out) in a fresh Python on ``folder``."""
    setup = code_cells(nb, "Set-up")[:1]
    solution = [c for c in code_cells(nb, "Worked solution") if ".plot(" not in c]
    script = "\n\n".join(setup + solution)
    subprocess.run([sys.executable, "-c", script], cwd=folder, check=True, capture_output=True, text=True)


class Server:
    def __init__(self, root: Path, model: str):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.token = secrets.token_hex(16)
        self.proc = subprocess.Popen(
            [
                str(JUPYTER),
                "server",
                "--allow-root",
                "--no-browser",
                f"--port={self.port}",
                f"--ServerApp.root_dir={root}",
                f"--IdentityProvider.token={self.token}",
                f"--GeoAgentSettings.model={model}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=open(root / "server.log", "w"),
            start_new_session=True,  # its own process group, for stop()
        )

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"token {self.token}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            return json.loads(resp.read() or b"{}")

    def wait_ready(self, seconds: float = 90) -> None:
        end = time.time() + seconds
        while time.time() < end:
            try:
                self.call("GET", "/geoagent/status")
                return
            except OSError:
                time.sleep(0.5)
        raise SystemExit("the server did not start")

    def stop(self) -> None:
        """Ask the server to stop; if it has not within 30 s (a model call it waits on), kill its
        process group so the figures are still printed (its kernels exit when their parent does)."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)


def read_deliverable(path: Path) -> pd.DataFrame:
    """A deliverable as a table, whatever its format: CSV, (Geo)Parquet, a vector file (GeoPackage,
    GeoJSON: geometry as a column), or JSON (a list of records, or an object of equal-length lists)."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return pd.read_csv(path)
    if suffix in (".parquet", ".geoparquet"):
        import pyarrow.parquet as pq

        if b"geo" in (pq.read_schema(path).metadata or {}):
            import geopandas as gpd

            return gpd.read_parquet(path)
        return pd.read_parquet(path)
    if suffix == ".json":
        return pd.DataFrame(json.loads(path.read_text()))
    import geopandas as gpd

    return gpd.read_file(path)


def _aligned(a: pd.DataFrame, b: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both in the reference's row order, by its first column when that is a key the other shares."""
    key = b.columns[0]
    if key in a.columns and b[key].is_unique and a[key].is_unique and key != getattr(b, "geometry", pd.Series()).name:
        return a.sort_values(key).reset_index(drop=True), b.sort_values(key).reset_index(drop=True)
    return a.reset_index(drop=True), b.reset_index(drop=True)


def _geometry_differs(a, b) -> int:
    """Rows whose geometry is more than 1 m (in a metric CRS for the reference's data) from the reference's."""
    if a.crs is None or b.crs is None:
        return len(b)
    metric = b.estimate_utm_crs() if b.crs.is_geographic else b.crs
    mine, ref = a.geometry.to_crs(metric), b.geometry.to_crs(metric)
    return int(sum(x is None or y is None or x.hausdorff_distance(y) > 1.0 for x, y in zip(mine.values, ref.values)))


def compare(mine: Path, reference: Path) -> tuple[bool, str]:
    """Same columns and rows; numbers equal within 0.5% or half the rounding the reference shows
    (the worked solution rounds densities to 2 decimals: 0.8347 against 0.83 is the same value);
    geometries within 1 m of the reference's, whatever CRS each is written in."""
    if not mine.exists():
        return False, "no file"
    a, b = read_deliverable(mine), read_deliverable(reference)
    if list(a.columns) != list(b.columns):
        missing = [c for c in b.columns if c not in a.columns]
        if missing or set(a.columns) != set(b.columns):
            return False, f"columns {list(a.columns)}; reference {list(b.columns)} (missing {missing})"
    if len(a) != len(b):
        return False, f"{len(a)} rows; reference {len(b)}"
    a, b = _aligned(a, b)
    geometry = getattr(b, "geometry", None)
    for col in b.columns:
        if geometry is not None and col == geometry.name:
            bad = _geometry_differs(a, b)
        elif pd.api.types.is_numeric_dtype(b[col]) and pd.api.types.is_numeric_dtype(a[col]):
            decimals = max((len(t.split(".")[1]) for t in b[col].astype(str) if "." in t), default=0)
            slack = 0.5 * 10**-decimals if pd.api.types.is_float_dtype(b[col]) else 0
            bad = ((a[col] - b[col]).abs() > 0.005 * b[col].abs().clip(lower=1e-9) + slack + 1e-9).sum()
        else:
            bad = (a[col].astype(str) != b[col].astype(str)).sum()
        if bad:
            return False, f"{bad} row(s) differ in {col}"
    return True, "every column and row matches"


def prepared_copies(tmp: Path, notebook: str):
    """(work, ref, notebook): two copies of ``examples/``, the worked solution run in ``ref``."""
    work, ref = tmp / "work", tmp / "ref"
    for d in (work, ref):
        shutil.copytree(ROOT / "examples", d)
    nb = nbformat.read(work / notebook, as_version=4)
    worked_solution(ref, nb)
    return work, ref, nb


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notebook", default="01_vector_areas_per_district.ipynb")
    ap.add_argument("--output", default="outputs/district_summary.csv")
    ap.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    ap.add_argument("--timeout", type=float, default=1500)
    ap.add_argument("--keep-log", type=Path, help="folder to copy the run log (JSONL) into")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work, ref, nb = prepared_copies(Path(tmp), args.notebook)
        request = request_of(nb)
        server = Server(work, args.model)
        try:
            server.wait_ready()
            session = server.call(
                "POST", "/api/sessions", {"path": args.notebook, "type": "notebook", "kernel": {"name": "python3"}}
            )
            client = BlockingKernelClient(connection_file=find_connection_file(session["kernel"]["id"]))
            client.load_connection_file()
            client.start_channels()
            client.execute_interactive(code_cells(nb, "Set-up")[0], timeout=120, output_hook=lambda msg: None)
            client.stop_channels()
            started = time.perf_counter()
            run = server.call("POST", "/geoagent/runs", {"request": request, "notebook_path": args.notebook})
            seen, finished = 0, None
            while finished is None and time.perf_counter() - started < args.timeout:
                time.sleep(2)
                for event in server.call("GET", f"/geoagent/runs/{run['run_id']}/events?after={seen}")["events"]:
                    seen = event["seq"]
                    line = {
                        k: event[k]
                        for k in (
                            "subtasks",
                            "description",
                            "status",
                            "message",
                            "text",
                            "passed",
                            "observed",
                            "error",
                            "reason",
                            "unmet",
                        )
                        if k in event
                    }
                    if "subtasks" in line:
                        line["subtasks"] = [s["description"] for s in line["subtasks"]]
                    print(
                        f"{time.perf_counter() - started:6.0f}s {event['type']} {json.dumps(line)[:2000]}",
                        file=sys.stderr,
                    )
                    if event["type"] == "finished":
                        finished = event
                    elif event["type"] == "needs_human":  # the run hands a step to the user: that is its outcome here
                        finished = {
                            "status": "needs_human",
                            "message": "; ".join([event.get("error", "")] + event.get("unmet", [])),
                            "stats": {"llm_calls": "n/a"},
                        }
            seconds = time.perf_counter() - started
            if finished is None or finished["status"] == "needs_human":
                server.call("POST", f"/geoagent/runs/{run['run_id']}/cancel", {})
        finally:
            server.stop()
        logs = sorted((work / ".geoagent" / "runs").glob("*.jsonl"))
        if args.keep_log:
            for log in logs:
                shutil.copy(log, args.keep_log)
        events = [json.loads(line) for log in logs for line in log.open()]
        plans = [e for e in events if e["type"] in ("planned", "replanned")]
        matches, why = compare(work / args.output, ref / args.output)
        print(f"request={request}")
        print(f"why={why}")
        print(f"status={finished['status'] if finished else 'timeout'}")
        print(f"message={finished['message'] if finished else ''}")
        print(f"steps_planned={len(plans[0]['subtasks']) if plans else 0}")
        print(f"steps_final={len(plans[-1]['subtasks']) if plans else 0}")
        print(f"llm_calls={finished['stats']['llm_calls'] if finished else 'n/a'}")
        print(f"seconds={seconds:.0f}")
        print(f"matches_worked_solution={matches}")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    main()
