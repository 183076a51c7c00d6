"""Namespace fingerprints (what a trial defined, changed, deleted), history, limits."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.
import os
import sys

# ---------------------------------------------------------------- namespace diff


_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), tuple, frozenset, range)


def _buffer_digest(a):
    """Digest of a numpy array's memory: values, or object *pointers* (no Python loop).

    Object arrays (geometries, strings) are fingerprinted by the addresses of
    their elements: an element can only change by being replaced, which changes
    its pointer. 200k rows cost about a millisecond.
    """
    import hashlib

    np = sys.modules["numpy"]
    if not a.flags.c_contiguous:
        a = np.ascontiguousarray(a)
    if a.dtype.hasobject:
        import ctypes

        raw = ctypes.string_at(a.ctypes.data, a.nbytes)
    else:
        raw = memoryview(a).cast("B") if a.nbytes else b""
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _array_digest(arr):
    np = sys.modules["numpy"]
    if isinstance(arr, np.ndarray):
        return _buffer_digest(arr)
    parts = []
    for attr in ("_ndarray", "_data", "_mask", "_codes"):  # numpy-backed, geometry, masked, categorical
        data = getattr(arr, attr, None)
        if isinstance(data, np.ndarray):
            parts.append(_buffer_digest(data))
    if parts:
        return tuple(parts)
    pa_array = getattr(arr, "_pa_array", None)  # arrow arrays are immutable: identity is enough
    if pa_array is not None:
        return ("arrow", id(pa_array))
    return ("array", id(arr), len(arr))


def _pandas_sig(obj):
    parts = [obj.shape, str(obj.dtypes if hasattr(obj, "columns") else obj.dtype)]
    idx = obj.index
    parts.append(
        (type(idx).__name__, tuple(idx[:1]), tuple(idx[-1:]), len(idx))
        if type(idx).__name__ == "RangeIndex"
        else _array_digest(idx.array)
    )
    if hasattr(obj, "columns"):
        parts.append(tuple(map(str, obj.columns)))
        for i in range(obj.shape[1]):
            parts.append(_array_digest(obj.iloc[:, i].array))
    else:
        parts.append(_array_digest(obj.array))
    if _is_geo(obj):
        parts.append(str(obj.crs))
    return tuple(parts)


def _sig(obj):
    """Cheap fingerprint used to notice in-place changes of an object."""
    if isinstance(obj, _IMMUTABLE) and type(obj) in _IMMUTABLE:
        try:
            return ("v", hash(obj))
        except TypeError:
            return ("t", id(obj), len(obj))
    parts = [id(obj)]
    try:
        if _is_pandas(obj, "DataFrame") or _is_pandas(obj, "Series"):
            return tuple(parts) + _pandas_sig(obj)
        np = sys.modules.get("numpy")
        if np is not None and isinstance(obj, np.ndarray):
            return tuple(parts + [obj.shape, str(obj.dtype), _buffer_digest(obj)])
        if isinstance(obj, (list, set, dict)):
            items = list(obj.items())[:2000] if isinstance(obj, dict) else list(obj)[:2000]
            return tuple(
                parts
                + [
                    len(obj),
                    hash(tuple(map(id, items)) if not isinstance(obj, dict) else tuple((k, id(v)) for k, v in items)),
                ]
            )
        d = getattr(obj, "__dict__", None)
        if isinstance(d, dict) and len(d) < 200:
            parts.append(tuple(sorted((str(k), id(v)) for k, v in d.items())))
    except Exception:
        pass
    return tuple(parts)


def _take_snapshot():
    ns = _ns()
    return {name: _sig(ns[name]) for name in _user_names(ns)}


def _diff(before):
    ns = _ns()
    after = _user_names(ns)
    defined, changed = [], []
    for name in after:
        if name not in before:
            defined.append(name)
        elif _sig(ns[name]) != before[name]:
            changed.append(name)
    deleted = sorted(set(before) - set(after))
    return sorted(defined), sorted(changed), deleted


def snapshot():
    """Remember the namespace (replay trials diff against it)."""
    _snapshot.clear()
    _snapshot.update(_take_snapshot())
    return len(_snapshot)


def diff():
    defined, changed, deleted = _diff(_snapshot)
    return {"defined": defined, "changed": changed, "deleted": deleted}


def _fingerprint(obj):
    import hashlib

    return hashlib.blake2b(repr(_sig(obj)).encode(), digest_size=8).hexdigest()


def fingerprints():
    """{name: fingerprint} of the user's variables (modules left out: an import is no variable
    to undo, and a user's own later import of the same module would look unchanged)."""
    import types

    ns = _ns()
    return {name: _fingerprint(ns[name]) for name in _user_names(ns) if not isinstance(ns[name], types.ModuleType)}


def delete_names(expected):
    """Delete variables whose fingerprint is still ``expected[name]`` (undoing a run): a name
    rebound or changed since then holds someone else's value and stays."""
    ns = _ns()
    deleted, kept = [], {}
    for name, fingerprint in sorted(expected.items()):
        if name not in ns:
            kept[name] = "not in the kernel anymore"
        elif _fingerprint(ns[name]) != fingerprint:
            kept[name] = "changed since the run set it"
        else:
            del ns[name]
            deleted.append(name)
    return {"deleted": deleted, "kept": kept}


def history():
    """Cells this kernel ran with history on (user cells and agent commits), in order."""
    sh = _shell()
    if sh is None:
        return []
    return [c for c in sh.history_manager.input_hist_raw[1:] if c.strip()]


def cwd():
    return os.getcwd()


def limit_memory(memory_mb):
    return _limit_memory(memory_mb)


def _limit_memory(memory_mb):
    """Soft RLIMIT_AS at current address space + memory_mb (Linux; elsewhere no-op)."""
    try:
        import resource

        with open("/proc/self/statm") as f:
            vsz = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        limit = vsz + int(memory_mb) * 2**20
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        return (soft, hard)
    except Exception:
        return None
