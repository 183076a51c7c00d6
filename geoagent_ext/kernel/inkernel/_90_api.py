"""The functions :func:`call` may run (everything else is private)."""

# Part of the in-kernel helper: the parts are executed IN ORDER in one module
# namespace (see inkernel/__init__.py), so names of earlier parts are globals here.

_API = {
    "members": members,
    "closest_names": closest_names,
    "home_of": home_of,
    "profile": profile,
    "frames_with_rows_of": frames_with_rows_of,
    "geo_frames": geo_frames,
    "geo_present": geo_present,
    "filled_columns": filled_columns,
    "geo_invalid": geo_invalid,
    "variables": variables,
    "snapshot": snapshot,
    "diff": diff,
    "fingerprints": fingerprints,
    "delete_names": delete_names,
    "history": history,
    "cwd": cwd,
    "limit_memory": limit_memory,
    "enter_sandbox": enter_sandbox,
    "sandbox_changes": sandbox_changes,
    "trial_start": trial_start,
    "trial_kill": trial_kill,
    "cleanup": cleanup,
    "check_contract": check_contract,
    "advise_crs": advise_crs,
    "advise_layer": advise_layer,
    "advise_all": advise_all,
    "profile_files": profile_files,
    "profile_file": profile_file,
    "input_facts": input_facts,
    "missing_files": missing_files,
    "make_output_dirs": make_output_dirs,
    "check_result": check_result,
}
