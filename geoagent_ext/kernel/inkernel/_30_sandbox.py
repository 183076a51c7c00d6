"""Where trials write files: their own overlay view of the file system, or a symlink mirror of the cwd."""

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


CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWNET = 0x00020000, 0x10000000, 0x40000000
MS_RDONLY, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE, MNT_DETACH = 1, 32, 4096, 0x4000, 1 << 18, 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217}
# Mounts kept as they are in the trial's view: their files are not the user's data, device nodes
# only work through the real mounts, and /proc, /sys are guarded by the kernel's own checks.
PSEUDO_FS = frozenset(
    {
        "proc",
        "sysfs",
        "devtmpfs",
        "devpts",
        "cgroup",
        "cgroup2",
        "mqueue",
        "bpf",
        "debugfs",
        "tracefs",
        "securityfs",
        "pstore",
        "configfs",
        "fusectl",
        "binfmt_misc",
        "autofs",
        "hugetlbfs",
        "efivarfs",
        "nsfs",
        "rpc_pipefs",
        "selinuxfs",
    }
)
KEPT_TREES = ("/proc", "/sys", "/dev")
SHARED_SCRATCH = ("/dev/shm",)  # inside a kept tree, yet a place programs write to: overlaid


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _check(result, what):
    if result != 0:
        import ctypes

        err = ctypes.get_errno()
        raise OSError(err, "%s: %s" % (what, os.strerror(err)))


def _mount(libc, source, target, fstype=None, flags=0, data=None):
    def enc(v):
        return None if v is None else os.fsencode(v)

    _check(
        libc.mount(enc(source), enc(target), enc(fstype), flags, enc(data)),
        "mounting %s on %s" % (fstype or source, target),
    )


def _unshare(libc):
    """Private user, mount and network namespaces; root without user namespaces gets the last
    two. Returns whether a user namespace was made (overlays then want ``userxattr``)."""
    uid, gid = os.getuid(), os.getgid()
    others = CLONE_NEWNS | CLONE_NEWNET
    if libc.unshare(CLONE_NEWUSER | others) == 0:
        _write_proc("/proc/self/setgroups", "deny")
        _write_proc("/proc/self/uid_map", "%d %d 1" % (uid, uid))
        _write_proc("/proc/self/gid_map", "%d %d 1" % (gid, gid))
        return True
    _check(libc.unshare(others), "unshare (user namespaces unavailable)")
    return False


def _unescape(path):
    """A mountinfo path: space, tab, newline and backslash are octal escapes there."""
    if "\\" not in path:
        return path
    import re

    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), path)


def _mountinfo(skip):
    """{mount point: (fs type, read-only)} of the mounts one sees (the last one mounted on a point)."""
    mounts = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields, _, rest = line.partition(" - ")
            fields = fields.split()
            point = _unescape(fields[4])
            if point != skip and not point.startswith(skip + "/"):
                mounts[point] = (rest.split()[0], "ro" in fields[5].split(","))
    return mounts


def _parents(paths):
    """Every directory that holds one of ``paths`` below it."""
    held = set()
    for p in paths:
        while p != "/":
            p = os.path.dirname(p)
            held.add(p)
    return held


def _within(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


class _FileView:
    """The trial's view of the whole file system, built under ``new_root`` before it becomes ``/``.

    Every writable directory tree is an overlay whose upper layer is on the trial's private
    tmpfs (``scratch``), gone when the trial ends. Overlayfs in a user namespace refuses a lower
    layer with mounts below it, so a directory holding mounts (``/``, ``/mnt`` ...) is rebuilt
    as a *level*: a tmpfs directory whose subdirectories are built the same way, whose
    symlinks are copied, and whose files are bound read-only. /proc, /sys, /dev and read-only
    mounts are bound as they are (/dev/shm gets an overlay of its own).
    """

    def __init__(self, libc, scratch, mounts, userns):
        self.libc, self.scratch, self.mounts, self.userns = libc, scratch, mounts, userns
        self.holders = _parents(mounts)
        self.layers = []  # (lower directory, upper directory)
        self.read_only = []  # trees that could not be overlaid: bound read-only instead

    def build(self, path, target):
        if self._kept(path):
            _mount(self.libc, path, target, flags=MS_BIND | MS_REC)
            self._layer_writable_inside(path, target)
        elif path not in self.holders:
            self._layer_or_read_only(path, target)
        else:
            self._level(path, target)

    def _kept(self, path):
        if any(_within(path, s) for s in SHARED_SCRATCH):
            return False
        fstype, read_only = self.mounts.get(path, ("", False))
        return fstype in PSEUDO_FS or read_only or any(_within(path, t) for t in KEPT_TREES)

    def _layer_writable_inside(self, path, target):
        """A kept tree's writable mounts (/dev/shm) still get overlays, or are made read-only
        where they hold mounts of their own."""
        for point in sorted(self.mounts):
            if point != path and _within(point, path) and not self._kept(point):
                inside = target + point[len(path.rstrip("/")) :]
                if point in self.holders:
                    _mount(self.libc, None, inside, flags=MS_REMOUNT | MS_BIND | MS_RDONLY)
                else:
                    self._layer_or_read_only(point, inside)

    def _layer_or_read_only(self, path, target):
        try:
            self._layer(path, target)
        except OSError:
            _mount(self.libc, path, target, flags=MS_BIND | MS_REC)
            _mount(self.libc, None, target, flags=MS_REMOUNT | MS_BIND | MS_RDONLY)
            self.read_only.append(path)

    def _layer(self, path, target):
        n = len(self.layers)
        upper, work = os.path.join(self.scratch, "u%d" % n), os.path.join(self.scratch, "w%d" % n)
        os.mkdir(upper)
        os.mkdir(work)
        lower = "".join("\\" + c if c in ",:\\" else c for c in path)
        opts = "lowerdir=%s,upperdir=%s,workdir=%s" % (lower, upper, work)
        first, second = (opts + ",userxattr", opts) if self.userns else (opts, opts + ",userxattr")
        try:
            _mount(self.libc, "overlay", target, "overlay", 0, first)
        except OSError:
            _mount(self.libc, "overlay", target, "overlay", 0, second)
        self.layers.append((path, upper))

    def _level(self, path, target):
        for entry in os.scandir(path):
            src, dst = entry.path, os.path.join(target, entry.name)
            try:
                if entry.is_symlink():
                    os.symlink(os.readlink(src), dst)
                elif entry.is_dir(follow_symlinks=False):
                    os.mkdir(dst, entry.stat(follow_symlinks=False).st_mode & 0o7777)
                    if src != self.scratch:
                        self.build(src, dst)
                else:
                    self._bind_file(entry, dst)
            except OSError:
                self.read_only.append(src)  # left out of the view, or empty

    def _bind_file(self, entry, dst):
        import stat

        open(dst, "w").close()
        _mount(self.libc, entry.path, dst, flags=MS_BIND)
        if stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):  # device nodes stay writable
            _mount(self.libc, None, dst, flags=MS_REMOUNT | MS_BIND | MS_RDONLY)
            self.read_only.append(entry.path)

    def changes(self, real):
        """Files written / deleted under the working directory ``real``, from the upper layers."""
        written, deleted = [], []
        for lower, fd in self.upper_fds:
            upper = "/proc/self/fd/%d" % fd
            if _within(real, lower):
                where, prefix = os.path.join(upper, os.path.relpath(real, lower)), ""
            elif _within(lower, real):
                where, prefix = upper, os.path.relpath(lower, real)
            else:
                continue
            if os.path.isdir(where):
                w, d = _walk_changes("overlay", real, where, prefix)
                written += w
                deleted += d
        return sorted(written), sorted(deleted)


def _writable_files():
    """(fd, path, flags, offset) of regular files the kernel holds open for writing: a trial
    writing through one would change the user's file whatever its view of paths."""
    import fcntl
    import stat

    held = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
            if fd < 3 or not flags & (os.O_WRONLY | os.O_RDWR) or not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            path = os.readlink("/proc/self/fd/%d" % fd)
            if path.startswith("/") and not path.endswith(" (deleted)"):
                held.append((fd, path, flags, os.lseek(fd, 0, os.SEEK_CUR)))
        except OSError:
            pass
    return held


def _reopen_in_view(held):
    """Point each held descriptor at the same path in the trial's view: opening it for writing
    copies the file into the trial's scratch (overlayfs' copy-up, as long as the file)."""
    keep = os.O_ACCMODE | os.O_APPEND | getattr(os, "O_SYNC", 0) | getattr(os, "O_DSYNC", 0)
    for fd, path, flags, offset in held:
        try:
            new = os.open(path, flags & keep)
        except OSError:
            new = os.open(os.devnull, os.O_RDWR)
        os.lseek(new, offset, os.SEEK_SET)
        os.dup2(new, fd)
        os.close(new)


def _pivot(libc, new_root):
    """Make ``new_root`` the root and drop the old one, so no path leads back to the real files."""
    import platform

    number = PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError("pivot_root: unknown system call number on %s" % platform.machine())
    os.chdir(new_root)
    os.mkdir(".old-root")
    _check(libc.syscall(__import__("ctypes").c_long(number), b".", b".old-root"), "pivot_root")
    os.chdir("/")
    _check(libc.umount2(b"/.old-root", MNT_DETACH), "detaching the old root")
    os.rmdir("/.old-root")


LANDLOCK_CREATE_RULESET, LANDLOCK_ADD_RULE, LANDLOCK_RESTRICT_SELF = 444, 445, 446  # on every architecture
# WRITE_FILE, REMOVE_DIR, REMOVE_FILE, MAKE_CHAR ... MAKE_SYM; then REFER (ABI 2), TRUNCATE (ABI 3)
LANDLOCK_WRITES = (2 | 16 | 32 | 64 | 128 | 256 | 512 | 1024 | 2048 | 4096, 8192, 16384)
LANDLOCK_SCOPE_SIGNAL = 2  # ABI 6


def _confine_writes(libc):
    """Where Linux has Landlock: writes only beneath the trial's root, and (ABI 6) no signal to a
    process outside the trial, such as the kernel. A second line: the user namespace already
    keeps the trial out of other processes' ``/proc/<pid>/root`` and ``/proc/<pid>/fd`` (that
    needs ``CAP_SYS_PTRACE`` in their namespace), the routes back to the real files."""
    import ctypes

    long = ctypes.c_long
    abi = libc.syscall(long(LANDLOCK_CREATE_RULESET), None, long(0), long(1))  # 1: the ABI version
    if abi < 1:
        return
    try:
        _restrict_self(libc, abi)
    except OSError:
        pass  # the view itself stands


def _restrict_self(libc, abi):
    """One Landlock ruleset: every write right, all of them allowed beneath ``/``."""
    import ctypes
    import struct

    long = ctypes.c_long
    handled = LANDLOCK_WRITES[0] | (LANDLOCK_WRITES[1] if abi >= 2 else 0) | (LANDLOCK_WRITES[2] if abi >= 3 else 0)
    attr = struct.pack("=QQQ", handled, 0, LANDLOCK_SCOPE_SIGNAL) if abi >= 6 else struct.pack("=Q", handled)
    ruleset = libc.syscall(long(LANDLOCK_CREATE_RULESET), attr, long(len(attr)), long(0))
    _check(0 if ruleset >= 0 else -1, "landlock_create_ruleset")
    root = os.open("/", os.O_PATH)
    try:
        rule = struct.pack("=Qi", handled, root)
        _check(libc.syscall(long(LANDLOCK_ADD_RULE), long(ruleset), long(1), rule, long(0)), "landlock_add_rule")
        _check(libc.syscall(long(LANDLOCK_RESTRICT_SELF), long(ruleset), long(0)), "landlock_restrict_self")
    finally:
        os.close(root)
        os.close(ruleset)


def _overlay(real, root):
    """Give this (single-threaded, forked) trial its own view of the whole file system.

    Linux, in private user, mount and network namespaces: every writable tree is an overlay
    whose changes (writes, deletes, renames; by Python, GDAL or a subprocess) land on a tmpfs
    that dies with the trial; directories holding other mounts are rebuilt with their files
    read-only (see :class:`_FileView`). The network namespace has no interface up, so
    nothing on the network, the Jupyter server's HTTP API included, can be reached; the
    socket the trial reports on was connected before the fork and still works. Descriptors
    the kernel holds open for writing are reopened in the view. Returns the view.
    """
    libc = _libc()
    userns = _unshare(libc)
    _mount(libc, "none", "/", flags=MS_REC | MS_PRIVATE)
    _mount(libc, "tmpfs", root, "tmpfs", 0, "mode=700")
    new_root = os.path.join(root, "root")
    os.mkdir(new_root)
    _mount(libc, "tmpfs", new_root, "tmpfs", 0, "mode=755")
    held = _writable_files()
    view = _FileView(libc, root, _mountinfo(root), userns)
    view.build("/", new_root)
    if any(_within(real, p) for p in view.read_only):
        raise OSError("the working directory could not be overlaid")
    view.upper_fds = [(lower, os.open(upper, os.O_RDONLY | os.O_DIRECTORY)) for lower, upper in view.layers]
    _pivot(libc, new_root)
    _reopen_in_view(held)
    _confine_writes(libc)
    os.chdir(real)
    return view


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
        "os.mkdir": (0,),
        "os.rename": (0, 1),
        "os.remove": (0,),
        "os.rmdir": (0,),
        "os.symlink": (1,),
        "os.link": (1,),
        "shutil.rmtree": (0,),
        "os.truncate": (0,),
        "os.chmod": (0,),
        "os.utime": (0,),
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
                raise PermissionError(
                    "trial sandbox: writing into the real working directory "
                    "(%s) is not allowed; use a relative path" % full
                )
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


def _walk_changes(mode, real, where, prefix=""):
    """Files a trial wrote / deleted, relative to the cwd (``where`` holds the cwd's ``prefix``)."""
    import stat

    written, deleted = [], []
    for dirpath, dirnames, filenames in os.walk(where):
        rel_dir = os.path.normpath(os.path.join(prefix, os.path.relpath(dirpath, where)))
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
                deleted += [
                    os.path.normpath(os.path.join(rel_dir, n)) for n in os.listdir(real_dir) if n not in present
                ]
        if len(written) > 1000:
            break
    return sorted(written), sorted(deleted)


NOT_ISOLATED = (
    "only Python writes into the working directory were redirected: this trial could change "
    "files elsewhere (and files in it through GDAL and other native writers) and reach the "
    "network, the Jupyter server's API included"
)


def _enter_sandbox(spec):
    """Where a trial's files go: ``(mode, where, note)``, the note saying what was not isolated.

    Users expect a trial to leave their files exactly as they were: candidates are
    tried by the dozen and most are thrown away; the accepted one is committed
    to the live kernel afterwards and writes its files for real. So, in order of
    preference:

    * ``overlay``: the trial's own view of the whole file system and no network
      (:func:`_overlay`; Linux with user namespaces, or root); ``where`` is the
      :class:`_FileView`, its changes discarded with the trial;
    * ``mirror``: cwd = a directory of symlinks to the real entries plus a
      copy-on-write audit hook (see :func:`_mirror`): the working directory only,
      Python writes only;
    * ``none``: no sandbox (only if asked for).
    """
    real, root, mode = spec["real"], spec["root"], spec["sandbox"]
    why = "asked for a mirror sandbox"
    if mode in ("auto", "overlay"):
        if not sys.platform.startswith("linux"):
            why = "no overlay sandbox on %s" % sys.platform
        else:
            try:
                return "overlay", _overlay(real, root), ""
            except Exception as e:
                if mode == "overlay":
                    raise
                why = "no overlay sandbox here (%s)" % e
    if mode in ("auto", "overlay", "mirror"):
        return "mirror", _mirror(real, root), "Trial not isolated, %s; %s." % (why, NOT_ISOLATED)
    return "none", None, "No sandbox (asked for): this trial wrote to the real files and could reach the network."


def _changed_files(mode, real, where):
    """Files the trial wrote / deleted under the working directory."""
    if where is None:
        return [], []
    if mode == "overlay":
        return where.changes(real)
    return _walk_changes(mode, real, where)


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
