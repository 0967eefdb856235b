#!/usr/bin/env python3
"""The sandbox's in-container runner (issue 12 "Execution", DESIGN.md "Code sandbox").

One long-lived process per session container, started as the container's command with stdin
attached. The service writes one JSON request per line on stdin and reads one JSON answer per line
from the runner's protocol stream (the container's original stdout, kept on a private descriptor:
whatever user code prints goes to per-call capture files, never into the protocol).

Requests: {"id": str, "op": str, ...}. Operations:
  ping                                   -> {"ok": true, "python": str}
  execute  {code, timeout}               -> {stdout, stderr, exit_code, error?, duration_ms, artifacts}
  bash     {command, timeout}            -> {stdout, stderr, exit_code, timed_out, duration_ms, artifacts}
  read     {path, offset, limit}         -> {content, lines, total_lines, truncated}
  read_binary {path}                     -> {content_base64, bytes, mime}
  write    {path, content, encoding}     -> {path, bytes}
  grep     {pattern, path}               -> {matches: [{path, line, text}], truncated}
  glob     {pattern}                     -> {paths, truncated}
  list_artifacts {}                      -> {artifacts}
Every answer is {"id", "ok": bool, ...} and {"ok": false, "code", "message"} on refusal.

Python state (variables, imports) lives in one namespace kept across `execute` calls, the way a
notebook kernel keeps it. A call is interrupted at its timeout by SIGALRM (a TimeoutError with a
traceback); code stuck in C that ignores signals is the service's to stop (it restarts the runner).
Paths resolve inside the container's own view (os.path.realpath here, in the container) and must
stay under the workspace.
"""
import base64
import fnmatch
import glob as globmod
import hashlib
import io
import json
import mimetypes
import os
import re
import signal
import subprocess
import sys
import time
import traceback

WORKSPACE = os.environ.get("SVC_WORKSPACE", "/workspace")
OUTPUT = os.path.join(WORKSPACE, "output")
CAPTURE_LIMIT = int(os.environ.get("SVC_CAPTURE_LIMIT", str(1024 * 1024)))
READ_LIMIT = 5 * 1024 * 1024
MATCH_LIMIT = 1000

# The protocol stream: a private copy of the original stdout, not inherited by children.
PROTO = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
# The runner's own process: a copy forked by user code (os.fork) never speaks the protocol.
RUNNER_PID = os.getpid()
NAMESPACE = {"__name__": "__main__", "__builtins__": __builtins__}


class Refused(Exception):
    """A request the runner refuses with a stable code."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class CallTimeout(BaseException):
    """Raised in user code when the call's time budget is spent (BaseException: `except Exception` in user code cannot swallow it)."""


def _on_alarm(_signum, _frame):
    raise CallTimeout("execution exceeded its timeout")


signal.signal(signal.SIGALRM, _on_alarm)


def resolve(path, must_exist=False):
    """Resolve `path` (relative to the workspace) in this container's view; refuse escapes."""
    if not isinstance(path, str) or path == "":
        raise Refused("invalid_path", "path must be a non-empty string")
    if "\x00" in path:
        raise Refused("invalid_path", "path contains a null byte")
    if os.path.isabs(path):
        raise Refused("invalid_path", "absolute paths are not allowed")
    if ".." in path.replace("\\", "/").split("/"):
        raise Refused("invalid_path", "'..' is not allowed in paths")
    full = os.path.realpath(os.path.join(WORKSPACE, path))
    if full != WORKSPACE and not full.startswith(WORKSPACE + os.sep):
        raise Refused("path_outside_workspace", "path resolves outside the workspace")
    if must_exist and not os.path.exists(full):
        raise Refused("file_not_found", "no such file: " + path)
    return full


def inside(full):
    real = os.path.realpath(full)
    return real == WORKSPACE or real.startswith(WORKSPACE + os.sep)


def snapshot_output():
    """Map of output files to (mtime_ns, size), for telling which files a call produced."""
    seen = {}
    if not os.path.isdir(OUTPUT):
        return seen
    for root, _dirs, files in os.walk(OUTPUT, followlinks=False):
        for name in files:
            full = os.path.join(root, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if os.path.islink(full) or not inside(full):
                continue
            seen[full] = (st.st_mtime_ns, st.st_size)
    return seen


def describe(full):
    with open(full, "rb") as fh:
        data = fh.read()
    mime = mimetypes.guess_type(full)[0] or "application/octet-stream"
    return {
        "name": os.path.relpath(full, WORKSPACE),
        "mime": mime,
        "bytes": len(data),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def changed_artifacts(before):
    after = snapshot_output()
    return [describe(f) for f, sig in sorted(after.items()) if before.get(f) != sig]


def capture_figures():
    """Save every open matplotlib figure to the output folder (no `savefig` needed) and close them."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    os.makedirs(OUTPUT, exist_ok=True)
    for num in plt.get_fignums():
        fig = plt.figure(num)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        path = os.path.join(OUTPUT, "figure-%s-%d.png" % (stamp, num))
        n = 1
        while os.path.exists(path):
            n += 1
            path = os.path.join(OUTPUT, "figure-%s-%d-%d.png" % (stamp, num, n))
        fig.savefig(path, format="png", dpi=100, bbox_inches="tight")
    plt.close("all")


def read_capture(fh):
    fh.flush()
    fh.seek(0)
    data = fh.read(CAPTURE_LIMIT + 1)
    text = data[:CAPTURE_LIMIT].decode("utf-8", "replace")
    if len(data) > CAPTURE_LIMIT:
        text += "\n[output truncated at %d bytes]" % CAPTURE_LIMIT
    return text


class Captured:
    """Point fds 1 and 2 (and sys.stdout/stderr) at temporary files for the length of one call."""

    def __enter__(self):
        self.out = open("/tmp/.svc-stdout", "w+b")
        self.err = open("/tmp/.svc-stderr", "w+b")
        sys.stdout.flush()
        sys.stderr.flush()
        self.saved = (os.dup(1), os.dup(2))
        os.dup2(self.out.fileno(), 1)
        os.dup2(self.err.fileno(), 2)
        self.py = (sys.stdout, sys.stderr)
        sys.stdout = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8", line_buffering=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(os.dup(2), "wb"), encoding="utf-8", line_buffering=True)
        return self

    def __exit__(self, *_exc):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:
            pass
        sys.stdout.close()
        sys.stderr.close()
        sys.stdout, sys.stderr = self.py
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        os.close(self.saved[0])
        os.close(self.saved[1])
        self.stdout = read_capture(self.out)
        self.stderr = read_capture(self.err)
        self.out.close()
        self.err.close()
        return False


def user_traceback(exc):
    """The traceback of user code, without the runner's own frame."""
    tb = exc.__traceback__
    if tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(exc), exc, tb))


def op_execute(req):
    code = req.get("code")
    if not isinstance(code, str):
        raise Refused("invalid_request", "code must be a string")
    timeout = float(req.get("timeout") or 30)
    before = snapshot_output()
    error = None
    started = time.monotonic()
    os.chdir(WORKSPACE)
    with Captured() as cap:
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            compiled = compile(code, "<cell>", "exec")
            exec(compiled, NAMESPACE)  # noqa: S102 - this is the sandbox's purpose
        except CallTimeout as exc:
            error = {"name": "TimeoutError", "message": "execution exceeded %gs" % timeout,
                     "traceback": user_traceback(exc)}
        except BaseException as exc:  # noqa: BLE001 - user code may raise anything, SystemExit included
            error = {"name": type(exc).__name__, "message": str(exc), "traceback": user_traceback(exc)}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            capture_figures()
        except Exception as exc:  # noqa: BLE001
            sys.stderr.write("figure capture failed: %s\n" % exc)
    return {
        "stdout": cap.stdout,
        "stderr": cap.stderr,
        "exit_code": 0 if error is None else 1,
        "error": error,
        "timed_out": error is not None and error["name"] == "TimeoutError",
        "duration_ms": round((time.monotonic() - started) * 1000, 3),
        "artifacts": changed_artifacts(before),
    }


def op_bash(req):
    command = req.get("command")
    if not isinstance(command, str):
        raise Refused("invalid_request", "command must be a string")
    timeout = float(req.get("timeout") or 30)
    before = snapshot_output()
    started = time.monotonic()
    with open("/tmp/.svc-bash-out", "w+b") as out, open("/tmp/.svc-bash-err", "w+b") as err:
        proc = subprocess.Popen(["/bin/bash", "-c", command], cwd=WORKSPACE, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err, start_new_session=True)
        timed_out = False
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            code = proc.wait()
        stdout, stderr = read_capture(out), read_capture(err)
    if timed_out:
        stderr += "\n[command exceeded %gs and was stopped]" % timeout
    return {
        "stdout": stdout,
        "stderr": stderr,
        "exit_code": code if not timed_out else 124,
        "timed_out": timed_out,
        "duration_ms": round((time.monotonic() - started) * 1000, 3),
        "artifacts": changed_artifacts(before),
    }


def op_read(req):
    full = resolve(req.get("path"), must_exist=True)
    if not os.path.isfile(full):
        raise Refused("not_a_file", "not a regular file")
    offset = max(0, int(req.get("offset") or 0))
    limit = int(req.get("limit") or 2000)
    limit = max(1, min(limit, 10000))
    lines, total, size = [], 0, 0
    with open(full, "r", encoding="utf-8", errors="replace") as fh:
        for i, line in enumerate(fh):
            total = i + 1
            if offset <= i < offset + limit and size < READ_LIMIT:
                lines.append(line)
                size += len(line)
    return {"content": "".join(lines), "offset": offset, "lines": len(lines), "total_lines": total,
            "truncated": offset + len(lines) < total}


def op_read_binary(req):
    full = resolve(req.get("path"), must_exist=True)
    if not os.path.isfile(full):
        raise Refused("not_a_file", "not a regular file")
    size = os.path.getsize(full)
    if size > 4 * READ_LIMIT:
        raise Refused("file_too_large", "file is larger than %d bytes" % (4 * READ_LIMIT))
    with open(full, "rb") as fh:
        data = fh.read()
    return {"content_base64": base64.b64encode(data).decode("ascii"), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "mime": mimetypes.guess_type(full)[0] or "application/octet-stream"}


def op_write(req):
    full = resolve(req.get("path"))
    content = req.get("content")
    if not isinstance(content, str):
        raise Refused("invalid_request", "content must be a string")
    encoding = req.get("encoding") or "utf8"
    if encoding == "base64":
        try:
            data = base64.b64decode(content, validate=True)
        except Exception:
            raise Refused("invalid_request", "content is not valid base64")
    elif encoding == "utf8":
        data = content.encode("utf-8")
    else:
        raise Refused("invalid_request", "encoding must be utf8 or base64")
    parent = os.path.dirname(full)
    os.makedirs(parent, exist_ok=True)
    if not inside(parent):
        raise Refused("path_outside_workspace", "path resolves outside the workspace")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(full, flags, 0o644)
    except OSError as exc:
        raise Refused("write_failed", "cannot write: %s" % exc.strerror)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    return {"path": os.path.relpath(full, WORKSPACE), "bytes": len(data)}


def walk_files(base):
    for root, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in files:
            full = os.path.join(root, name)
            if os.path.islink(full) and not inside(full):
                continue
            yield full


def op_grep(req):
    pattern = req.get("pattern")
    if not isinstance(pattern, str) or pattern == "":
        raise Refused("invalid_request", "pattern must be a non-empty string")
    try:
        rx = re.compile(pattern)
    except re.error as exc:
        raise Refused("invalid_pattern", "invalid regular expression: %s" % exc)
    base = resolve(req.get("path") or ".", must_exist=True)
    targets = [base] if os.path.isfile(base) else walk_files(base)
    matches, truncated = [], False
    for full in targets:
        try:
            with open(full, "r", encoding="utf-8", errors="replace") as fh:
                for n, line in enumerate(fh, 1):
                    if len(line) > 10000:
                        line = line[:10000]
                    if rx.search(line):
                        matches.append({"path": os.path.relpath(full, WORKSPACE), "line": n, "text": line.rstrip("\n")})
                        if len(matches) >= MATCH_LIMIT:
                            truncated = True
                            break
        except OSError:
            continue
        if truncated:
            break
    return {"matches": matches, "truncated": truncated}


def glob_match(pat, parts):
    """Whether path segments `parts` match pattern segments `pat`: fnmatch per segment, `**` for any
    number of segments; a hidden name only matches a pattern segment that starts with a dot (as glob)."""
    memo = {}

    def m(i, j):
        key = (i, j)
        if key not in memo:
            if i == len(pat):
                memo[key] = j == len(parts)
            elif pat[i] == "**":
                memo[key] = m(i + 1, j) or (j < len(parts) and not parts[j].startswith(".") and m(i, j + 1))
            elif j == len(parts) or (parts[j].startswith(".") and not pat[i].startswith(".")):
                memo[key] = False
            else:
                memo[key] = fnmatch.fnmatchcase(parts[j], pat[i]) and m(i + 1, j + 1)
        return memo[key]

    return m(0, 0)


def op_glob(req):
    """Workspace paths matching a pattern, found by walking the workspace without following links
    (a link to / or /proc/self/root must not turn `**` into a walk of the whole container)."""
    pattern = req.get("pattern")
    if not isinstance(pattern, str) or pattern == "" or "\x00" in pattern:
        raise Refused("invalid_request", "pattern must be a non-empty string")
    if os.path.isabs(pattern) or ".." in pattern.replace("\\", "/").split("/"):
        raise Refused("invalid_path", "glob patterns stay inside the workspace")
    segs = []
    for seg in pattern.split("/"):
        if seg in ("", ".") or (seg == "**" and segs and segs[-1] == "**"):
            continue
        segs.append(seg)
    literal = []
    for seg in segs:
        if seg == "**" or globmod.has_magic(seg):
            break
        literal.append(seg)
    base = os.path.join(WORKSPACE, *literal)
    # A link on the literal part of the pattern is not followed (as grep does not follow links).
    if not os.path.lexists(base) or os.path.realpath(base) != os.path.normpath(base):
        return {"paths": [], "truncated": False}
    rest = segs[len(literal):]
    if not rest:
        return {"paths": [os.path.relpath(base, WORKSPACE)] if base != WORKSPACE else [], "truncated": False}
    deep = "**" in rest
    # `**` also matches no segment: `data/**` lists `data` itself, as glob does.
    found = [os.path.relpath(base, WORKSPACE)] if base != WORKSPACE and all(seg == "**" for seg in rest) else []
    for root, dirs, files in os.walk(base, followlinks=False):
        rel = os.path.relpath(root, base)
        prefix = [] if rel == "." else rel.split(os.sep)
        for name in dirs + files:
            full = os.path.join(root, name)
            if glob_match(rest, prefix + [name]) and inside(full):
                found.append(os.path.relpath(full, WORKSPACE))
        if len(found) > MATCH_LIMIT:
            break
        if not deep and len(prefix) + 1 >= len(rest):
            dirs[:] = []
    found.sort()
    return {"paths": found[:MATCH_LIMIT], "truncated": len(found) > MATCH_LIMIT}


def op_ping(_req):
    return {"python": sys.version.split()[0], "workspace": WORKSPACE, "uid": os.getuid()}


OPS = {"ping": op_ping, "execute": op_execute, "bash": op_bash, "read": op_read,
       "read_binary": op_read_binary, "write": op_write, "grep": op_grep, "glob": op_glob,
       "list_artifacts": lambda _r: {"artifacts": changed_artifacts({})}}


def reap_children():
    """Collect every exited child (the runner is the container's init: orphans become its children)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_strays():
    """End every process a call left behind (background jobs, copies forked by user code, a fork bomb):
    a call's processes end with the call, so nothing runs, or holds the pids limit, between calls.
    Only as the container's init (PID 1), where kill(-1) reaches exactly this container's other processes."""
    if os.getpid() != 1:
        return
    for _ in range(200):
        try:
            os.kill(-1, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            break
        reap_children()
        time.sleep(0.002)
    reap_children()


def answer(obj):
    if os.getpid() != RUNNER_PID:
        os._exit(0)  # a copy of the runner forked by user code: leave without answering
    PROTO.write(json.dumps(obj, separators=(",", ":")) + "\n")
    PROTO.flush()


def seed_matplotlib():
    """Copy the image's prebuilt font cache into the writable MPLCONFIGDIR (the root is read-only)."""
    seed, target = os.environ.get("SVC_MPL_SEED"), os.environ.get("MPLCONFIGDIR")
    if not seed or not target or not os.path.isdir(seed):
        return
    os.makedirs(target, exist_ok=True)
    for name in os.listdir(seed):
        src, dst = os.path.join(seed, name), os.path.join(target, name)
        if os.path.isfile(src) and not os.path.exists(dst):
            with open(src, "rb") as a, open(dst, "wb") as b:
                b.write(a.read())


def preload():
    """Import the heavy libraries once, so a warm session's first call does not pay for them."""
    if os.environ.get("SVC_PRELOAD", "1") != "1":
        return
    try:
        import numpy  # noqa: F401
        import pandas  # noqa: F401
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except Exception:  # noqa: BLE001 - a missing library shows up when user code imports it
        pass


def private_requests():
    """The request stream: a private copy of the original stdin; user code gets /dev/null as stdin
    (so `input()` fails at once instead of waiting for, and eating, the service's next request)."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(os.devnull, "r", encoding="utf-8")
    return requests


def main():
    requests = private_requests()
    os.makedirs(OUTPUT, exist_ok=True)
    os.environ.setdefault("MPLBACKEND", "Agg")
    seed_matplotlib()
    preload()
    answer({"id": "ready", "ok": True, "python": sys.version.split()[0]})
    for raw in requests:
        raw = raw.strip()
        if not raw:
            continue
        try:
            req = json.loads(raw)
        except ValueError:
            answer({"id": None, "ok": False, "code": "invalid_request", "message": "request is not JSON"})
            continue
        rid = req.get("id")
        op = OPS.get(req.get("op"))
        if op is None:
            answer({"id": rid, "ok": False, "code": "invalid_request", "message": "unknown op"})
            continue
        try:
            result = op(req)
            if req.get("op") in ("execute", "bash"):
                end_strays()
            result["id"] = rid
            result["ok"] = True
            answer(result)
        except Refused as exc:
            answer({"id": rid, "ok": False, "code": exc.code, "message": str(exc)})
        except CallTimeout:
            answer({"id": rid, "ok": False, "code": "timeout", "message": "operation exceeded its timeout"})
        except Exception as exc:  # noqa: BLE001
            answer({"id": rid, "ok": False, "code": "runner_error", "message": "%s: %s" % (type(exc).__name__, exc)})


if __name__ == "__main__":
    main()
