"""Fork trials inside the user's kernel (:func:`trial_start`).

The kernel ``fork()``s. The child is a copy-on-write copy of the whole kernel
state, made in milliseconds, and never touches the parent's ZMQ sockets or
IOPub thread:

* it gets its own process group (a kernel interrupt does not reach it and the
  service can kill it and anything it spawned);
* ``sys.stdout``/``stderr``, ipykernel's ``OutStream`` class and
  ``Session.send`` are replaced by in-memory capture / no-ops, file descriptors
  1 and 2 (which ipykernel pipes into IOPub) are pointed at private files, and
  inherited sockets are closed, so nothing a trial prints can reach the user's
  notebook and the kernel's ports are not held;
* ``shell.display_pub`` is swapped for a capturing publisher; matplotlib is
  forced to Agg (a GUI backend in a forked child would crash) and new figures
  are returned as PNG outputs;
* limits: ``RLIMIT_AS`` = current address space + ``memory_mb`` (so the limit
  is about what the trial allocates, not the copied state), ``RLIMIT_CPU`` and
  ``alarm()`` as back-stops; the service kills the process group on timeout;
* it dies with the kernel (Linux ``PR_SET_PDEATHSIG``, :func:`_die_with_kernel`);
* files and network: see ``_enter_sandbox`` (``_30_sandbox.py``): on Linux the
  child gets its own view of the whole file system, discarded when it ends, and
  a network namespace without interfaces (the socket it reports on was
  connected before the fork). The child reports the names it defined, changed
  and deleted, and the files it wrote, then ``os._exit``s (no atexit handlers,
  no ZMQ teardown in the copy).

The parent only forks, sends one line to the service's Unix socket and returns:
the kernel's shell is busy for milliseconds, not for the trial's duration, so
the user can keep running cells. The child streams its result to the same
socket; the connection's EOF tells the service that the child is gone.

A kernel on another host (behind a gateway) cannot reach the service's socket:
with ``relay=True`` the child writes to a socket pair instead and a thread of
the kernel publishes what it wrote as one IOPub message (``geoagent_trial``,
parent ``msg_id`` ``geoagent-trial-<token>``) when the child is gone, so the
result travels the kernel's own channels and the shell stays free meanwhile.
Frontends ignore a message type they do not know, with a parent that is not theirs.
"""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.
import ast
import inspect
import io
import json
import os
import sys
import time

# ---------------------------------------------------------------- trials (fork)


def _reap():
    for pid in list(_children):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            _children.discard(pid)


def trial_start(code, socket_path, token, timeout, memory_mb, sandbox="auto", keep=8, relay=False):
    """Fork a trial of ``code``; returns at once with the child's pid (or why not).

    ``relay``: report through the kernel's IOPub (a kernel on another host) instead
    of the service's Unix socket ``socket_path``."""
    import socket

    if not hasattr(os, "fork"):
        return {"mode": "unavailable", "reason": "os.fork is not available on this platform"}
    child_end = None
    if relay:
        if _kernel() is None or not hasattr(socket, "socketpair"):
            return {"mode": "unavailable", "reason": "this kernel cannot relay a trial's result (no ipykernel)"}
        sock, child_end = socket.socketpair()
    elif not hasattr(socket, "AF_UNIX") or not os.path.exists(socket_path):
        return {"mode": "unavailable", "reason": "the service socket is not visible from this kernel"}
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(5)
            sock.connect(socket_path)
            sock.sendall((json.dumps({"token": token, "ppid": os.getpid()}) + "\n").encode())
        except OSError as e:
            sock.close()
            return {"mode": "unavailable", "reason": "cannot reach the service socket: %s" % e}
    real = os.path.realpath(os.getcwd())
    root = _new_sandbox(real)
    _sandboxes.append(root)
    if len(_sandboxes) > keep:
        cleanup(keep)
    spec = {
        "code": code,
        "timeout": float(timeout),
        "memory_mb": memory_mb,
        "sandbox": sandbox,
        "real": real,
        "root": root,
        "before": _cached_snapshot(),
    }
    # no stdout flush: the child replaces OutStream, so the parent's buffer is never sent twice
    kernel_pid, arm = os.getpid(), _parent_death_signal()
    pid = os.fork()
    if pid == 0:  # child: never returns
        _die_with_kernel(kernel_pid, arm)
        if child_end is not None:
            sock.close()
            sock = child_end
        _child(sock, spec)
    _children.add(pid)
    if child_end is not None:
        child_end.close()
        import threading

        threading.Thread(target=_relay, args=(sock, token, pid), daemon=True, name="geoagent-trial-relay").start()
    else:
        sock.close()
    return {"mode": "fork", "pid": pid, "sandbox_root": root}


def _kernel():
    return getattr(_shell(), "kernel", None)


def _parent_death_signal():
    """Linux: a function that makes the calling process get SIGKILL when its parent dies
    (``prctl(PR_SET_PDEATHSIG)``), looked up before the fork; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes
        import signal

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except Exception:
        return None
    PR_SET_PDEATHSIG = 1
    return lambda: prctl(
        PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGKILL), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)
    )


def _die_with_kernel(kernel_pid, arm):
    """In the child, first thing: a trial must not outlive its kernel (orphaned, it would run on
    to its time limit with nobody to report to). If the kernel died before the signal was armed
    the child already has another parent: it leaves at once."""
    if arm is not None:
        arm()
    if os.getppid() != kernel_pid:
        os._exit(1)


def _relay(sock, token, pid):
    """Thread of the kernel: wait for the child's result and publish it on IOPub."""
    data = b""
    try:
        reader = sock.makefile("rb")
        reader.readline()  # the child's pid line (the parent knows it already)
        data = reader.read()
    except Exception:
        data = b""
    finally:
        sock.close()
    try:
        os.waitpid(pid, 0)
        _children.discard(pid)
    except OSError:
        pass
    kernel = _kernel()
    if kernel is None:
        return
    parent = {
        "msg_id": "geoagent-trial-" + token,
        "msg_type": "geoagent_trial",
        "session": "",
        "username": "geoagent",
        "version": "5.3",
    }
    content = {"token": token, "result": data.decode("utf-8", "replace") if data else None}
    kernel.session.send(kernel.iopub_socket, "geoagent_trial", content, parent=parent)


_snap_cache = {}


def _cached_snapshot():
    """Fingerprints of the live namespace, reused while it has not changed.

    Computed in the parent (the ids inside stay valid in the forked copy) once
    per state: the search evaluates many candidates against the same state.
    The key changes when a cell runs or any name is rebound; an in-place change
    made by a *silent* execution keeps the key, so a later trial may then list
    that name as changed (a false positive, never a missed change of its own).
    """
    sh = _shell()
    ns = _ns()
    key = (getattr(sh, "execution_count", None), len(ns), hash(tuple(map(id, ns.values()))))
    if _snap_cache.get("key") != key:
        _snap_cache.clear()
        _snap_cache.update(key=key, snap=_take_snapshot())
    return _snap_cache["snap"]


def _child(sock, spec):
    try:
        sock.settimeout(None)
        sock.sendall((json.dumps({"pid": os.getpid()}) + "\n").encode())
        result = _trial_body(spec, keep=(sock.fileno(),))
    except BaseException as e:  # the sandbox itself failed
        result = {
            "status": "error",
            "error": {"ename": type(e).__name__, "evalue": str(e), "traceback": [], "lineno": None},
        }
    try:
        sock.sendall(json.dumps(result, default=str).encode())
        sock.close()
    finally:
        os._exit(0)


class _Capture(io.TextIOBase):
    """sys.stdout / sys.stderr of a trial: text goes to the outputs list in order."""

    def __init__(self, name, sink):
        self.name = name
        self.sink = sink

    def writable(self):
        return True

    def write(self, text):
        if not isinstance(text, str):
            text = str(text)
        self.sink.stream(self.name, text)
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


class _Sink:
    """Collects a trial's outputs as nbformat dicts."""

    def __init__(self):
        self.outputs = []
        self.text = {"stdout": [], "stderr": []}
        self.size = 0

    def stream(self, name, text):
        if self.size > 2_000_000:
            return
        self.size += len(text)
        self.text[name].append(text)
        last = self.outputs[-1] if self.outputs else None
        if last and last["output_type"] == "stream" and last["name"] == name:
            last["text"] += text
        else:
            self.outputs.append({"output_type": "stream", "name": name, "text": text})

    def display(self, data, metadata=None, transient=None, update=False, result_count=None):
        display_id = (transient or {}).get("display_id")
        if update and display_id:
            for out in self.outputs:
                if out.get("_display_id") == display_id:
                    out["data"], out["metadata"] = data, metadata or {}
            return
        out = {"output_type": "display_data", "data": data, "metadata": metadata or {}}
        if result_count is not None:
            out["output_type"] = "execute_result"
            out["execution_count"] = result_count
        if display_id:
            out["_display_id"] = display_id
        self.outputs.append(out)


def _capturing_publisher(sink):
    try:
        from IPython.core.displaypub import DisplayPublisher
    except Exception:
        DisplayPublisher = object

    class Publisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kw):
            sink.display(data, metadata, transient, update)

        def clear_output(self, wait=False):
            sink.outputs[:] = []

    return Publisher()


def _close_sockets(keep):
    """Close the kernel's inherited sockets in the child.

    The ZMQ listening sockets would otherwise stay bound while the trial runs
    (a kernel restart could not re-bind its ports) and a user's database or
    HTTP connection shared by two processes gets corrupted; a trial that needs
    one fails clearly instead.
    """
    import stat

    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 1024)
    for fd in fds:
        if fd < 3 or fd in keep:
            continue
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.close(fd)
        except OSError:
            pass


def _isolate(sink, spec, keep=()):
    """Cut every path from this forked child back to the kernel's sockets."""
    import signal

    os.setpgid(0, 0)
    for signame in ("SIGTERM", "SIGALRM", "SIGCHLD", "SIGHUP", "SIGUSR1", "SIGUSR2"):
        if hasattr(signal, signame):
            signal.signal(getattr(signal, signame), signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if hasattr(signal, "alarm"):
        signal.alarm(int(spec["timeout"]) + 2)
    try:
        import resource

        cpu = int(spec["timeout"]) + 3
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    except Exception:
        pass
    # fds 1 and 2 are pipes ipykernel forwards to IOPub: point them at private files
    import tempfile

    native = (tempfile.TemporaryFile(), tempfile.TemporaryFile())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(native[0].fileno(), 1)
    os.dup2(native[1].fileno(), 2)
    _close_sockets(keep)
    out, err = _Capture("stdout", sink), _Capture("stderr", sink)
    try:
        from ipykernel import iostream

        def _write(self, text):
            return (out if self.name == "stdout" else err).write(text)

        iostream.OutStream.write = _write
        iostream.OutStream.flush = lambda self: None
    except Exception:
        pass
    try:
        from jupyter_client.session import Session

        Session.send = lambda self, *a, **k: None  # comms, widgets, errors: never reach IOPub
    except Exception:
        pass
    sys.stdout, sys.stderr = out, err
    sys.stdin = open(os.devnull)
    try:
        import asyncio

        asyncio.events._set_running_loop(None)  # we are not inside the kernel's loop any more
    except Exception:
        pass
    os.environ["MPLBACKEND"] = "agg"
    if "matplotlib" in sys.modules:
        try:
            import matplotlib

            matplotlib.use("agg", force=True)
        except Exception:
            pass
    sh = _shell()
    if sh is not None:
        try:
            sh.display_pub = _capturing_publisher(sink)
        except Exception:
            pass
    return native


def _trial_body(spec, keep=()):
    t0 = time.perf_counter()
    marks = {}
    last = [t0]  # when the previous mark was taken

    def mark(name):
        now = time.perf_counter()
        marks[name] = round(now - last[0], 4)
        last[0] = now

    sink = _Sink()
    native = _isolate(sink, spec, keep)
    mark("isolate")
    mode, where, note = _enter_sandbox(spec)
    mark("sandbox")
    before = spec.get("before")
    if before is None:
        before = _take_snapshot()
    mark("snapshot")
    limits = _limit_memory(spec["memory_mb"]) if spec.get("memory_mb") else None
    exc = _run(spec["code"], sink)
    mark("run")
    if limits is not None:  # lift the limit before formatting errors and diffing
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, limits)
        except Exception:
            pass
    error = _error_dict(exc, _shell()) if exc is not None else None
    _collect_figures(sink)
    for name, f in zip(("stdout", "stderr"), native):  # C-level output (GDAL, os.system)
        f.seek(0)
        text = f.read(200_000).decode("utf-8", "replace")
        if text:
            sink.stream(name, text)
    mark("outputs")
    defined, changed, deleted = _diff(before)
    mark("diff")
    files, files_deleted = _changed_files(mode, spec["real"], where)
    mark("files")
    for out in sink.outputs:
        out.pop("_display_id", None)
    return {
        "status": "error" if error else "ok",
        "outputs": sink.outputs,
        "stdout": "".join(sink.text["stdout"]),
        "stderr": "".join(sink.text["stderr"]),
        "error": error,
        "defined": defined,
        "changed": changed,
        "deleted": deleted,
        "files": files,
        "files_deleted": files_deleted,
        "sandbox_dir": where if mode == "mirror" else None,
        "sandbox": mode,
        "sandbox_note": note,
        "duration_s": time.perf_counter() - t0,
        "timings": marks,
    }


_FILENAME = "<geoagent-trial>"


def _run(code, sink):
    """Run a cell like IPython does (magics, last expression displayed); return the exception."""
    import linecache

    sh = _shell()
    ns = _ns()
    try:
        src = sh.transform_cell(code) if sh is not None else code
        linecache.cache[_FILENAME] = (len(src), None, src.splitlines(True), _FILENAME)
        tree = ast.parse(src, _FILENAME)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not src.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
        _await(eval(compile(tree, _FILENAME, "exec", flags=flags), ns))
        if last is not None:
            value = _await(eval(compile(last, _FILENAME, "eval", flags=flags), ns))
            if value is not None:
                if sh is not None:
                    data, md = sh.display_formatter.format(value)
                else:
                    data, md = {"text/plain": repr(value)}, {}
                sink.display(data, md, result_count=getattr(sh, "execution_count", None))
        return None
    except BaseException as e:  # KeyboardInterrupt, SystemExit, MemoryError included
        return e


def _await(value):
    if inspect.iscoroutine(value):
        import asyncio

        return asyncio.new_event_loop().run_until_complete(value)
    return value


def _error_dict(e, sh):
    import traceback as tbmod

    tb = e.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != _FILENAME:
        tb = tb.tb_next
    lineno = None
    if isinstance(e, SyntaxError) and e.filename == _FILENAME:
        lineno = e.lineno
    elif tb is not None:
        lineno = tb.tb_lineno
    tb = tb or e.__traceback__
    try:
        if sh is not None and not isinstance(e, SyntaxError):
            lines = sh.InteractiveTB.structured_traceback(type(e), e, tb)
        else:
            lines = tbmod.format_exception(type(e), e, tb)
    except Exception:
        lines = tbmod.format_exception(type(e), e, tb)
    evalue = str(e)
    if isinstance(e, SyntaxError):
        evalue = e.msg or evalue
    return {"ename": type(e).__name__, "evalue": evalue, "traceback": lines, "lineno": lineno}


def _collect_figures(sink, limit=5):
    if "matplotlib.pyplot" not in sys.modules:
        return
    try:
        import base64

        plt = sys.modules["matplotlib.pyplot"]
        for num in plt.get_fignums()[:limit]:
            fig = plt.figure(num)
            buf = io.BytesIO()
            fig.savefig(buf, format="png", dpi=72)
            sink.display({"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": repr(fig)}, {})
    except Exception:
        pass


def trial_kill(pid):
    """Kill a trial from inside the kernel (when the service cannot signal it itself)."""
    import signal

    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:  # not yet its own group leader
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _reap()
    return True
