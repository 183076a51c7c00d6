"""Where trials write files: overlay or symlink-mirror sandboxes of the cwd."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.
import os
import sys
import time
# ---------------------------------------------------------------- sandboxes


def _sandbox_base(real):
    import tempfile

    for base in (tempfile.gettempdir(), "/dev/shm", "/var/tmp", os.path.expanduser("~/.cache")):
        b = os.path.realpath(base)
        if os.path.isdir(b) and os.access(b, os.W_OK) and not (b + os.sep).startswith(real.rstrip(os.sep) + os.sep):
            return b
    return tempfile.gettempdir()


SANDBOX_PREFIX = "geoagent-trial-"
STALE_AFTER_S = 24 * 3600


def _new_sandbox(real):
    import tempfile

    base = _sandbox_base(real)
    _sweep_stale(base)
    return tempfile.mkdtemp(prefix=SANDBOX_PREFIX, dir=base)


def _sweep_stale(base):
    """Remove our sandboxes older than a day (left by a kernel or service that died)."""
    now = time.time()
    try:
        names = [n for n in os.listdir(base) if n.startswith(SANDBOX_PREFIX)]
    except OSError:
        return
    for name in names:
        path = os.path.join(base, name)
        try:
            st = os.lstat(path)
            if st.st_uid == os.getuid() and now - st.st_mtime > STALE_AFTER_S:
                _rmtree(path)
        except OSError:
            pass


def _rmtree(path):
    """rmtree that also removes overlayfs' mode-000 ``work/work`` directory."""
    import shutil
    import stat

    def retry(func, p, _exc):
        try:
            os.chmod(os.path.dirname(p), stat.S_IRWXU)
            os.chmod(p, stat.S_IRWXU)
            func(p)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)


def cleanup(keep=0):
    """Remove old trial sandboxes (the latest ``keep`` stay for inspection)."""
    while len(_sandboxes) > keep:
        _rmtree(_sandboxes.pop(0))
    return len(_sandboxes)


def _write_proc(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except FileNotFoundError:
        pass


def _overlay(real, root):
    """Mount an overlay (lower: the real cwd, upper: the sandbox) over the cwd.

    Linux only, in a private user + mount namespace of the (single-threaded)
    forked child: every write under the cwd, relative or absolute, by Python or
    by GDAL, lands in ``upper``; the user's files are never modified.
    """
    import ctypes

    if any(ch in real for ch in ",:\\\n"):
        raise OSError("cwd path not usable in overlay options")
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    upper, work = os.path.join(root, "upper"), os.path.join(root, "work")
    os.mkdir(upper)
    os.mkdir(work)
    CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0:
        _write_proc("/proc/self/setgroups", "deny")
        _write_proc("/proc/self/uid_map", "%d %d 1" % (uid, uid))
        _write_proc("/proc/self/gid_map", "%d %d 1" % (gid, gid))
    elif libc.unshare(CLONE_NEWNS) != 0:  # root without user namespaces
        raise OSError(ctypes.get_errno(), "unshare failed")
    MS_REC, MS_PRIVATE = 0x4000, 1 << 18
    if libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        raise OSError(ctypes.get_errno(), "making mounts private failed")
    opts = "lowerdir=%s,upperdir=%s,workdir=%s" % (real, upper, work)
    if libc.mount(b"overlay", real.encode(), b"overlay", 0, opts.encode()) != 0:
        err = ctypes.get_errno()
        if libc.mount(b"overlay", real.encode(), b"overlay", 0, (opts + ",userxattr").encode()) != 0:
            raise OSError(err, "overlay mount failed")
    os.chdir(real)
    return upper


def _mirror(real, root, hook=True):
    """Fallback sandbox: a directory of symlinks to the cwd's entries, copy-on-write for Python.

    Reads of relative paths work. An audit hook turns Python-level writes into
    writes inside the mirror: a symlinked directory on the way is replaced by a
    real directory of symlinks, a symlinked file is copied (or just unlinked
    when it is truncated) before it is opened for writing; Python writes to
    absolute paths inside the real cwd raise PermissionError. Native writers
    (GDAL, netCDF) bypass audit hooks: a new file they create in the mirror's
    top level is fine, but updating an existing input in place would reach the
    user's file. This is why the overlay is preferred where available.
    """
    mirror = os.path.join(root, "cwd")
    os.mkdir(mirror)
    base = os.path.dirname(root)
    for name in os.listdir(real):
        src = os.path.join(real, name)
        if os.path.realpath(src) in (root, base):
            continue
        os.symlink(src, os.path.join(mirror, name))
    os.chdir(mirror)
    if hook:
        sys.addaudithook(_CowHook(real, mirror))
    return mirror


class _CowHook:
    """Audit hook of the mirror sandbox (see :func:`_mirror`)."""

    WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    PATH_EVENTS = {
        "os.mkdir": (0,), "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,),
        "os.symlink": (1,), "os.link": (1,), "shutil.rmtree": (0,),
        "os.truncate": (0,), "os.chmod": (0,), "os.utime": (0,),
    }
    FOLLOWS = {"os.truncate", "os.chmod", "os.utime"}

    def __init__(self, real, mirror):
        self.real = os.path.realpath(real)
        self.mirror = mirror
        self.busy = False

    def __call__(self, event, args):
        if self.busy:
            return
        if event == "open":
            path, mode, flags = (list(args) + [None, None, 0])[:3]
            if not isinstance(flags, int) or not flags & self.WRITE:
                if not (isinstance(mode, str) and any(c in mode for c in "wax+")):
                    return
                flags = os.O_TRUNC if "w" in mode else os.O_APPEND
            self._guard(path, file=True, truncate=bool(flags & os.O_TRUNC))
        elif event in self.PATH_EVENTS:
            for i in self.PATH_EVENTS[event]:
                if i < len(args):
                    self._guard(args[i], file=event in self.FOLLOWS, truncate=False)

    def _guard(self, path, file, truncate):
        if isinstance(path, int) or path is None:
            return
        try:
            path = os.fsdecode(path)
        except TypeError:
            return
        full = os.path.normpath(os.path.join(os.getcwd(), path))
        self.busy = True
        try:
            if (full + os.sep).startswith(self.mirror + os.sep):
                self._materialize(full, file, truncate)
            elif (full + os.sep).startswith(self.real + os.sep):
                raise PermissionError("trial sandbox: writing into the real working directory "
                                      "(%s) is not allowed; use a relative path" % full)
        finally:
            self.busy = False

    def _materialize(self, full, file, truncate):
        import shutil

        rel = os.path.relpath(full, self.mirror)
        if rel == ".":
            return
        parts = rel.split(os.sep)
        cur = self.mirror
        for part in parts[:-1]:
            cur = os.path.join(cur, part)
            if os.path.islink(cur) and os.path.isdir(cur):
                target = os.readlink(cur)
                os.unlink(cur)
                os.mkdir(cur)
                for name in os.listdir(target):
                    os.symlink(os.path.join(target, name), os.path.join(cur, name))
        last = os.path.join(cur, parts[-1])
        if file and os.path.islink(last) and os.path.isfile(last):
            target = os.readlink(last)
            os.unlink(last)
            if not truncate:
                shutil.copy2(target, last)


def _walk_changes(mode, real, where):
    """Files a trial wrote / deleted, relative to the cwd."""
    import stat

    written, deleted = [], []
    for dirpath, dirnames, filenames in os.walk(where):
        rel_dir = os.path.relpath(dirpath, where)
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, name)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            st = os.lstat(p)
            if mode == "overlay" and stat.S_ISCHR(st.st_mode) and st.st_rdev == 0:
                deleted.append(rel)  # overlay whiteout
            elif not stat.S_ISLNK(st.st_mode):
                written.append(rel)
        if mode == "mirror":  # entries of the real dir missing from the mirror were deleted
            real_dir = os.path.join(real, rel_dir)
            if os.path.isdir(real_dir) and not os.path.islink(dirpath):
                present = set(os.listdir(dirpath))
                deleted += [os.path.normpath(os.path.join(rel_dir, n)) for n in os.listdir(real_dir)
                            if n not in present]
        if len(written) > 1000:
            break
    return sorted(written), sorted(deleted)


def _enter_sandbox(spec):
    """Where a trial's files go.

    Users expect a trial to leave their folder exactly as it was: candidates are
    tried by the dozen and most are thrown away; the accepted one is committed
    to the live kernel afterwards and writes its files for real. So the trial
    runs with the real cwd path but, in order of preference:

    * ``overlay``: an overlayfs over the cwd in a private mount namespace (Linux
      with unprivileged user namespaces, or root): all writes under the cwd go
      to ``<sandbox>/upper``;
    * ``mirror``: cwd = a directory of symlinks to the real entries plus a
      copy-on-write audit hook (see :func:`_mirror`);
    * ``none``: no sandbox (only if asked for).
    """
    real, root, mode = spec["real"], spec["root"], spec["sandbox"]
    if mode in ("auto", "overlay") and sys.platform.startswith("linux"):
        try:
            return "overlay", _overlay(real, root)
        except Exception:
            if mode == "overlay":
                raise
    if mode in ("auto", "overlay", "mirror"):
        return "mirror", _mirror(real, root)
    return "none", None


def enter_sandbox(real=None):
    """Replay kernels: run inside a mirror sandbox of ``real`` (no fork, no overlay)."""
    real = os.path.realpath(real or os.getcwd())
    root = _new_sandbox(real)
    _sandboxes.append(root)  # removed by cleanup() before the replay kernel is shut down
    mirror = _mirror(real, root)
    _sandbox_state.update(mode="mirror", real=real, where=mirror)
    return mirror


_sandbox_state = {}


def sandbox_changes():
    if not _sandbox_state:
        return {"files": [], "files_deleted": [], "sandbox_dir": None}
    written, deleted = _walk_changes(_sandbox_state["mode"], _sandbox_state["real"], _sandbox_state["where"])
    return {"files": written, "files_deleted": deleted, "sandbox_dir": _sandbox_state["where"]}
