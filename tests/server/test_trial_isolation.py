"""A trial changes nothing outside itself: no file anywhere (the working directory, its parent,
/tmp, home, nor the real files behind another process's /proc entries) and nothing through the
Jupyter server's HTTP API, whether the candidate fails or succeeds. The accepted candidate's
effects come from its live run, which is not sandboxed.

A real jupyter_server with real kernels; the candidate holds the server's token, as code that
found it would."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import textwrap
from pathlib import Path

import pytest

from geoagent_ext.kernel import KernelService

# Writes, deletes and renames in every place a candidate can name, then a PUT to the contents API.
CANDIDATE = textwrap.dedent("""
    import json, os, urllib.request
    report = {}

    def attempt(name, action):
        try:
            action()
            report[name] = "done"
        except Exception as exc:
            report[name] = "%s: %s" % (type(exc).__name__, exc)

    def put(path):
        body = json.dumps({"type": "file", "format": "text", "content": "from a trial"}).encode()
        headers = {"Authorization": "token " + TOKEN, "Content-Type": "application/json"}
        request = urllib.request.Request(URL + "api/contents/" + path, data=body, method="PUT", headers=headers)
        urllib.request.urlopen(request, timeout=5).close()

    for place, where in (("cwd", "."), ("parent", ".."), ("tmp", TMP), ("home", HOME)):
        attempt(place + "_write", lambda: open(os.path.join(where, "made.txt"), "w").write("new"))
        attempt(place + "_overwrite", lambda: open(os.path.join(where, "keep.txt"), "w").write("changed"))
        attempt(place + "_delete", lambda: os.remove(os.path.join(where, "delete_me.txt")))
        attempt(
            place + "_rename",
            lambda: os.rename(os.path.join(where, "rename_me.txt"), os.path.join(where, "renamed.txt")),
        )
    attempt("dir_rename", lambda: os.rename("data", "data_moved"))
    attempt("kernel_root", lambda: open("/proc/%d/root%s/keep.txt" % (os.getppid(), os.getcwd()), "w").write("changed"))
    attempt("api_put", lambda: put("escaped.txt"))
    print("REPORT " + json.dumps(report))
""")
PLACES = ("cwd", "parent", "tmp", "home")


def _seed(folder):
    for name in ("keep.txt", "delete_me.txt", "rename_me.txt"):
        (folder / name).write_text(f"original {name}\n")


def _snapshot(*roots):
    """Every path under ``roots`` with a digest of its content: what a trial must leave as it was.
    IPython's own folder is left out: the live kernel writes its history there meanwhile."""
    seen = {}
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if d != ".ipython"]
            for name in dirnames:
                seen[os.path.join(dirpath, name)] = "dir"
            for name in filenames:
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    seen[path] = hashlib.sha256(f.read()).hexdigest()
    return seen


def _report(stdout):
    [line] = [line for line in stdout.splitlines() if line.startswith("REPORT ")]
    return json.loads(line[len("REPORT ") :])


@pytest.fixture
def places(jp_root_dir, jp_home_dir):
    """The kernel's working directory (a project folder of the server's root), its parent,
    a folder in /tmp and the home directory, each with files to overwrite, delete and rename."""
    project = jp_root_dir / "project"
    (project / "data").mkdir(parents=True)
    (project / "data" / "input.csv").write_text("a,b\n1,2\n")
    tmp = tempfile.mkdtemp(prefix="trial-isolation-", dir="/tmp")
    for folder in (project, jp_root_dir, Path(tmp), jp_home_dir):
        _seed(folder)
    yield {"project": project, "tmp": tmp, "roots": (str(jp_root_dir), tmp, str(jp_home_dir))}
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def server_url(http_server, jp_http_port, jp_base_url):
    """Where the server answers HTTP (``http_server`` serves the port)."""
    return f"http://127.0.0.1:{jp_http_port}{jp_base_url}"


def _candidate(jp_serverapp, server_url, places, jp_home_dir, tail=""):
    setup = (
        f"URL = {server_url!r}\nTOKEN = {jp_serverapp.identity_provider.token!r}\n"
        f"TMP = {places['tmp']!r}\nHOME = {str(jp_home_dir)!r}\n"
    )
    return setup + CANDIDATE + tail


async def _trial(jp_serverapp, places, code):
    """Start a kernel in the project folder, then trial ``code``: (kernel id, service, result,
    the snapshot of every place taken before the trial)."""
    km = jp_serverapp.kernel_manager
    kernel_id = await km.start_kernel(kernel_name="python3", path="project")
    service = KernelService(km)
    try:
        assert (await service.execute(kernel_id, "pass", timeout=60)).status == "ok"
        before = _snapshot(*places["roots"])
        return kernel_id, service, await service.trial(kernel_id, code, timeout=60), before
    except BaseException:
        await service.close()
        raise


def _require_full_isolation(res):
    if res.sandbox != "overlay" or res.sandbox_note:
        pytest.skip(f"trials cannot be fully isolated on this machine: {res.sandbox_note}")


async def test_a_failed_trial_changes_no_file_and_does_not_reach_the_server(
    jp_serverapp, server_url, jp_root_dir, jp_home_dir, places
):
    code = _candidate(jp_serverapp, server_url, places, jp_home_dir, tail="raise RuntimeError('the candidate fails')\n")
    kernel_id, service, res, before = await _trial(jp_serverapp, places, code)
    await service.close()
    _require_full_isolation(res)
    assert res.status == "error" and res.error.ename == "RuntimeError", res.error
    report = _report(res.stdout)
    # The trial saw an ordinary, writable file system: every change succeeded in its own view ...
    assert {f"{p}_{op}" for p in PLACES for op in ("write", "overwrite", "delete", "rename")} <= {
        k for k, v in report.items() if v == "done"
    }, report
    assert report["dir_rename"] == "done" or "Errno 18" in report["dir_rename"], report  # EXDEV from overlayfs
    # ... except the real files behind the kernel's /proc entry, and the server, which it never reached.
    assert report["kernel_root"].startswith("PermissionError"), report
    assert report["api_put"].startswith("URLError"), report
    assert _snapshot(*places["roots"]) == before  # nothing changed on disk, anywhere
    assert not (jp_root_dir / "escaped.txt").exists()
    assert "data" in os.listdir(places["project"])


async def test_a_succeeding_trial_is_discarded_and_its_live_run_makes_the_changes(
    jp_serverapp, server_url, jp_root_dir, jp_home_dir, places
):
    code = _candidate(jp_serverapp, server_url, places, jp_home_dir)
    kernel_id, service, res, before = await _trial(jp_serverapp, places, code)
    try:
        _require_full_isolation(res)
        assert res.status == "ok", res.error
        assert {"made.txt", "keep.txt", "renamed.txt"} <= set(res.files)  # reported, relative to the cwd
        assert {"delete_me.txt", "rename_me.txt"} <= set(res.files_deleted)
        assert _snapshot(*places["roots"]) == before
        assert not (jp_root_dir / "escaped.txt").exists()
        live = await service.execute(kernel_id, code, timeout=60)  # what committing the candidate does
    finally:
        await service.close()
    assert live.status == "ok", live.error
    assert _report(live.stdout)["api_put"] == "done"  # the server was reachable: only the trial was cut off
    assert (jp_root_dir / "escaped.txt").read_text() == "from a trial"
    for folder in (places["project"], jp_root_dir, jp_home_dir):
        assert (folder / "made.txt").read_text() == "new"
        assert (folder / "keep.txt").read_text() == "changed"
        assert not (folder / "delete_me.txt").exists() and (folder / "renamed.txt").exists()
