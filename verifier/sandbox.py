"""Run untrusted Python in its own process with kernel limits — the code verifier's sandbox.

What is enforced, and by whom (be precise: a reward service runs code a policy was *trained* to write):

* **Kernel** (cannot be bypassed from Python):
  - its own process and process group, killed as a whole on the wall-time timeout; afterwards every
    process still owned by the run's uid is killed too (fork bombs that ``setsid`` away included);
  - ``RLIMIT_CPU`` (CPU seconds), ``RLIMIT_AS`` (address space), ``RLIMIT_NPROC`` (processes),
    ``RLIMIT_FSIZE`` (largest file written, stdout/stderr included), ``RLIMIT_NOFILE``, no core files;
  - when started as root: a private network namespace (``unshare(CLONE_NEWNET)``: only a down
    loopback, so every connection fails) and a switch to a throw-away uid (61000-61999, one per
    concurrent run) so the process can neither write to files it does not own nor read other
    processes' ``/proc/<pid>/environ``. ``RLIMIT_NPROC`` only binds non-root uids, which is a second
    reason for the switch. The interpreter must be readable by that uid (``/usr/bin/python3``).
  - as a non-root user: a user+network namespace when the kernel allows unprivileged ones; the uid
    stays the caller's;
  - **file reading** (:mod:`verifier.sandbox_fs`): Landlock where the kernel has it (an allowlist: the
    standard library, ``/usr``, a few ``/etc`` files and the run's own work directory; no ``/proc``,
    ``/tmp``, project, venv or home), else a mount namespace with tmpfs over the private places when
    root, else nothing — recorded as ``fs:landlock-abiN`` / ``fs:mountns`` in ``isolation``, absent
    when reading is not prevented.
* **Python audit hook** (installed before the untrusted code runs; a determined program could try to
  get round it, which is why the kernel layer exists): refuses opening files for writing, renaming,
  removing, ``chmod`` … outside the run's temporary directory (this closes world-writable places such
  as ``/tmp`` and ``/dev/shm`` that the uid switch leaves open), refuses ``exec``/``spawn``/
  ``subprocess`` (so every process stays a hooked Python fork), ``ctypes`` and non-Unix sockets.
* **Environment**: scrubbed — only ``PATH``, ``HOME`` and ``TMPDIR`` (the work dir), ``LANG`` and a
  hash seed; ``python -I`` ignores ``PYTHON*`` variables and the user site.

Output: stdout and stderr go to files (so a huge output cannot block a pipe) and are read back
trimmed to ``max_output_bytes``. fd 3 is the ``report`` channel (read back up to ``max_report_bytes``):
the code backend's trusted ``harness`` (run after the set-up, in place of ``main.py``, which it runs
itself) writes call results or a nonce there. Whatever the program writes there is read as untrusted.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel, Field

from verifier.sandbox_fs import BOOT_FS, FsIsolation, fs_config, resolve

logger = logging.getLogger(__name__)

_UID_BASE, _UID_COUNT = 61000, 1000
_LOCK_DIR = Path(tempfile.gettempdir()) / "medverifier-sandbox-locks"

# The trusted prologue: runs in the child before the untrusted program (argv[1] = the config as a
# Python literal, read with eval before anything untrusted runs: json would cost its re/enum imports
# on every run; argv[2] = an optional trusted harness that runs main.py itself). Nothing secret may go
# into either: a program can read both (sys.orig_argv, and /proc/self/cmdline where /proc is readable).
_BOOT = r"""
import os, resource, sys
cfg = eval(sys.argv[1], {"__builtins__": {}})
fs = cfg["fs"]

__BOOT_FS__
if cfg["netns"] or fs["mechanism"] == "mountns":
    import ctypes
    _libc = ctypes.CDLL(None, use_errno=True)
    _flags = (0x40000000 if cfg["netns"] else 0) | (0x20000 if fs["mechanism"] == "mountns" else 0)
    if os.geteuid() != 0:
        _flags |= 0x10000000  # CLONE_NEWUSER
    if _libc.unshare(_flags) != 0:
        _fail("unshare")
    if fs["mechanism"] == "mountns":
        _mountns(_libc, fs["hide"], cfg["workdir"])
    del _libc, ctypes
for _name, _value in cfg["rlimits"].items():
    resource.setrlimit(getattr(resource, _name), (_value, _value))
if fs["mechanism"] == "landlock":
    _landlock(fs["abi"], fs["read"], fs["devices"], cfg["workdir"])
sys.modules.pop("ctypes", None)
if cfg.get("probe"):  # the parent checks once that the mechanism really hides this file
    try:
        open(cfg["probe"], "rb").close()
    except OSError:
        os._exit(0)
    os._exit(3)
if cfg["uid"] is not None:
    os.setgroups([])
    os.setgid(cfg["uid"])
    os.setuid(cfg["uid"])
if cfg["report_fd"] != 3:
    os.dup2(cfg["report_fd"], 3)
    os.close(cfg["report_fd"])
# Every layer is in place: say so on a pipe that is closed before any untrusted code runs, so a
# program cannot make its run look like a sandbox that failed to start (which would leave it unscored).
os.write(cfg["ready_fd"], b"1")
os.close(cfg["ready_fd"])

def _make_hook(root):
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    path_events = {"os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.chmod": (0,),
                   "os.chown": (0,), "os.truncate": (0,), "os.utime": (0,), "os.rename": (0, 1),
                   "os.link": (1,), "os.symlink": (1,), "os.chflags": (0,), "os.setxattr": (0,),
                   "os.removexattr": (0,), "shutil.rmtree": (0,)}
    blocked = ("os.exec", "os.posix_spawn", "os.spawn", "os.system", "subprocess.Popen", "ctypes.",
               "os.forkpty", "sys.setprofile")
    realpath, fsdecode, sep = os.path.realpath, os.fsdecode, os.sep

    def inside(path):
        if isinstance(path, int):
            return True
        rp = realpath(fsdecode(path))
        return rp == root or rp.startswith(root + sep)

    def hook(event, args):
        if event == "open":
            path, mode, flags = args
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or bool((flags or 0) & write_flags)
            if writing and path is not None and not inside(path):
                raise PermissionError(f"sandbox: writing outside the working directory is refused: {path}")
        elif event in path_events:
            for i in path_events[event]:
                if args[i] is not None and not inside(args[i]):
                    raise PermissionError(f"sandbox: {event} outside the working directory is refused: {args[i]}")
        elif event == "socket.__new__" and args[1] != 1:
            raise PermissionError("sandbox: network sockets are refused")
        elif event.startswith(blocked):
            raise PermissionError(f"sandbox: {event} is refused")

    return hook

_root = os.path.realpath(cfg["workdir"])
sys.addaudithook(_make_hook(_root))
_harness = sys.argv[2] if len(sys.argv) > 2 else None
del cfg, fs, _name, _value, resource, _make_hook, _mountns, _landlock
sys.argv = ["main.py"]
sys.path[0] = _root
if _harness is None:
    import runpy
    runpy.run_path("main.py", run_name="__main__")
else:
    import builtins
    exec(compile(_harness, "<harness>", "exec"), {"__name__": "__harness__", "__builtins__": builtins})
""".replace("__BOOT_FS__", BOOT_FS)

class SandboxLimits(BaseModel):
    timeout_s: float = Field(5.0, gt=0, description="wall-clock limit; the process group is killed after it")
    cpu_s: int | None = Field(None, description="RLIMIT_CPU; default ceil(timeout_s) + 1")
    memory_mb: int = Field(512, ge=64, description="RLIMIT_AS")
    max_processes: int = Field(16, ge=1, description="RLIMIT_NPROC for the run's uid")
    max_file_mb: int = Field(16, ge=1, description="RLIMIT_FSIZE: largest file, stdout/stderr included")
    max_open_files: int = Field(64, ge=16)
    max_output_bytes: int = Field(64_000, ge=256, description="stdout/stderr are trimmed to this")
    max_report_bytes: int = Field(1_000_000, ge=4096, description="the fd 3 report channel is cut at this")


class SandboxResult(BaseModel):
    exit_code: int | None  # negative = killed by that signal
    stdout: str = ""
    stderr: str = ""
    report: str = ""  # what the program (or its harness) wrote to fd 3
    report_truncated: bool = False
    setup_failed: bool = False  # the sandbox did not finish setting up: nothing is known about the program
    timed_out: bool = False
    signal: str | None = None
    duration_s: float = 0.0
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    isolation: str = ""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def _default_python() -> str:
    # After the uid switch the interpreter and its stdlib must be readable by that uid; a pyenv or
    # venv under /root is not, the distribution's python is.
    if os.geteuid() == 0 and os.access("/usr/bin/python3", os.X_OK):
        return "/usr/bin/python3"
    return sys.executable


_NETNS_PROBE: dict[str, bool] = {}


def _netns_available(python: str) -> bool:
    """Whether this kernel/container lets us create a network namespace (probed once per interpreter)."""
    if python not in _NETNS_PROBE:
        flags = "0x40000000" if os.geteuid() == 0 else "0x50000000"
        probe = f"import ctypes,sys; sys.exit(ctypes.CDLL(None).unshare({flags}) != 0)"
        try:
            ok = subprocess.run([python, "-I", "-c", probe], timeout=10, capture_output=True).returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            ok = False
        if not ok:
            logger.warning("no network namespace available: network is blocked by the audit hook only")
        _NETNS_PROBE[python] = ok
    return _NETNS_PROBE[python]


def trim(text: str, limit: int = 2000) -> str:
    """Keep the head and the tail of a long text (errors are usually at the end)."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n... [{len(text) - limit} chars trimmed] ...\n{text[-half:]}"


class _UidLease:
    """A throw-away uid claimed with an flock, so concurrent runs (even across processes) never share one."""

    def __init__(self) -> None:
        _LOCK_DIR.mkdir(mode=0o755, exist_ok=True)
        start = random.randrange(_UID_COUNT)
        for i in range(_UID_COUNT):
            uid = _UID_BASE + (start + i) % _UID_COUNT
            fd = os.open(_LOCK_DIR / f"{uid}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError("sandbox: no free uid (1000 concurrent runs?)")

    def release(self) -> None:
        os.close(self._fd)


def _kill_uid(uid: int) -> int:
    """SIGKILL every process owned by ``uid``; repeat until none is left (a fork bomb keeps forking)."""
    killed = 0
    for _ in range(50):
        found = False
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                if entry.stat().st_uid == uid:
                    os.kill(int(entry.name), signal.SIGKILL)
                    found = True
                    killed += 1
            except (FileNotFoundError, ProcessLookupError):
                continue
        if not found:
            break
        time.sleep(0.01)
    return killed


def _read_trimmed(path: Path, limit: int) -> tuple[str, bool]:
    with open(path, "rb") as handle:
        data = handle.read(limit + 1)
    return data[:limit].decode("utf-8", "replace"), len(data) > limit


class Sandbox:
    """Runs Python programs under :class:`SandboxLimits`; at most ``max_concurrency`` at a time."""

    def __init__(
        self,
        limits: SandboxLimits | None = None,
        *,
        python: str | None = None,
        max_concurrency: int | None = None,
        network_namespace: bool = True,
        switch_uid: bool | None = None,
        fs_isolation: FsIsolation = "auto",
        private: list[str] | None = None,
    ) -> None:
        self.limits = limits or SandboxLimits()
        self.python = python or _default_python()
        self.network_namespace = network_namespace and _netns_available(self.python)
        self.switch_uid = os.geteuid() == 0 if switch_uid is None else switch_uid
        self.fs_mechanism = resolve(self.python, fs_isolation, _BOOT)  # "landlock", "mountns" or "none"
        self._fs = fs_config(self.fs_mechanism, self.python, private or [])
        self._semaphore = asyncio.Semaphore(max_concurrency or max(2, (os.cpu_count() or 2) * 2))

    @property
    def reads_are_confined(self) -> bool:
        """Whether a program is kept from reading the project, other runs and the rest of the disk."""
        return self.fs_mechanism != "none"

    async def run(
        self,
        code: str,
        *,
        stdin: str = "",
        files: dict[str, str] | None = None,
        limits: SandboxLimits | None = None,
        harness: str | None = None,
    ) -> SandboxResult:
        """Run ``code`` as ``main.py``. ``harness``: trusted Python that runs after the sandbox is set up
        and instead of ``main.py``, which it must run itself (the code backend's call harness)."""
        if harness is not None and len(harness.encode()) > 100_000:
            raise ValueError(f"sandbox: harness of {len(harness.encode())} bytes is over the 100 kB argv limit")
        async with self._semaphore:
            return await self._run(code, stdin, files or {}, limits or self.limits, harness)

    async def _run(
        self, code: str, stdin: str, files: dict[str, str], limits: SandboxLimits, harness: str | None
    ) -> SandboxResult:
        outer = Path(tempfile.mkdtemp(prefix="mv-sandbox-"))
        lease = _UidLease() if self.switch_uid else None
        try:
            return await self._run_in(outer, lease, code, stdin, files, limits, harness)
        finally:
            if lease is not None:
                await asyncio.to_thread(_kill_uid, lease.uid)
                lease.release()
            shutil.rmtree(outer, ignore_errors=True)

    async def _run_in(
        self, outer: Path, lease: _UidLease | None, code: str, stdin: str, files: dict[str, str],
        limits: SandboxLimits, harness: str | None,
    ) -> SandboxResult:
        os.chmod(outer, 0o711)  # the child may pass through to its workdir, but not list or write here
        work = outer / "work"
        work.mkdir()
        (work / "main.py").write_text(code, encoding="utf-8")
        for name, content in files.items():
            target = (work / name).resolve()
            if not target.is_relative_to(work.resolve()):
                raise ValueError(f"sandbox: file name {name!r} escapes the working directory")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")
        (outer / "stdin").write_text(stdin, encoding="utf-8")
        if lease is not None:
            for path in [work, *work.rglob("*")]:
                os.chown(path, lease.uid, lease.uid)
            os.chmod(work, 0o700)  # other runs (other uids) cannot read this run's program
        cpu = limits.cpu_s or math.ceil(limits.timeout_s) + 1
        rlimits = {
            "RLIMIT_CPU": cpu,
            "RLIMIT_AS": limits.memory_mb * 1024 * 1024,
            "RLIMIT_NPROC": limits.max_processes,
            "RLIMIT_FSIZE": limits.max_file_mb * 1024 * 1024,
            "RLIMIT_NOFILE": limits.max_open_files,
            "RLIMIT_CORE": 0,
        }
        env = {"PATH": "/usr/bin:/bin", "HOME": str(work), "TMPDIR": str(work), "LANG": "C.UTF-8",
               "PYTHONHASHSEED": "0"}
        with (
            open(outer / "stdin", "rb") as fin,
            open(outer / "stdout", "wb") as fout,
            open(outer / "stderr", "wb") as ferr,
            open(outer / "report", "wb") as frep,
        ):
            ready_r, ready_w = os.pipe()
            config = {
                "netns": self.network_namespace,
                "rlimits": rlimits,
                "uid": lease.uid if lease else None,
                "workdir": str(work),
                "report_fd": frep.fileno(),
                "ready_fd": ready_w,
                "fs": self._fs,
            }
            argv = [self.python, "-I", "-c", _BOOT, repr(config), *([harness] if harness is not None else [])]
            try:
                proc, timed_out, duration, ready = await self._start_and_wait(
                    argv, (fin, fout, ferr, frep), work, env, limits, ready_r, ready_w)
            finally:
                os.close(ready_r)
        stdout, out_cut = _read_trimmed(outer / "stdout", limits.max_output_bytes)
        stderr, err_cut = _read_trimmed(outer / "stderr", limits.max_output_bytes)
        report, report_cut = _read_trimmed(outer / "report", limits.max_report_bytes)
        code_ = proc.returncode
        sig = signal.Signals(-code_).name if code_ is not None and code_ < 0 else None
        isolation = ["process-group", "rlimits", "audit-hook", "scrubbed-env"]
        if lease is not None:
            isolation.append(f"uid={lease.uid}")
        if self.network_namespace:
            isolation.append("netns")
        if self.fs_mechanism == "landlock":
            isolation.append(f"fs:landlock-abi{self._fs['abi']}")
        elif self.fs_mechanism == "mountns":
            isolation.append("fs:mountns")
        return SandboxResult(
            exit_code=code_, stdout=stdout, stderr=stderr, report=report, report_truncated=report_cut,
            timed_out=timed_out, setup_failed=not ready and not timed_out,
            signal=sig, duration_s=round(duration, 4), stdout_truncated=out_cut, stderr_truncated=err_cut,
            isolation=",".join(isolation),
        )



    async def _start_and_wait(
        self, argv: list[str], files: tuple, work: Path, env: dict[str, str], limits: SandboxLimits,
        ready_r: int, ready_w: int,
    ) -> tuple[asyncio.subprocess.Process, bool, float, bool]:
        """Start the child, wait for it (killing its group on the timeout), read the ready pipe."""
        fin, fout, ferr, frep = files
        started = time.perf_counter()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv,
                stdin=fin, stdout=fout, stderr=ferr, cwd=work, env=env,
                start_new_session=True, pass_fds=(frep.fileno(), ready_w),
            )
        finally:
            os.close(ready_w)  # only the child holds the write end
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), timeout=limits.timeout_s)
        except TimeoutError:
            timed_out = True
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await proc.wait()
        duration = time.perf_counter() - started
        os.set_blocking(ready_r, False)
        try:
            ready = os.read(ready_r, 8) == b"1"
        except BlockingIOError:
            ready = False
        return proc, timed_out, duration, ready


class PythonTool:
    """The ``python`` tool for tool-integrated rollouts: runs one cell, returns an observation string."""

    name = "python"
    description = "Run a Python program in a sandbox (no network, no files outside its temp dir)."

    def __init__(self, sandbox: Sandbox | None = None, *, max_chars: int = 2000) -> None:
        self.sandbox = sandbox or Sandbox()
        self.max_chars = max_chars

    async def __call__(self, code: str, stdin: str = "") -> str:
        result = await self.sandbox.run(code, stdin=stdin)
        parts = []
        if result.stdout:
            parts.append(trim(result.stdout, self.max_chars))
        if result.stderr:
            parts.append("[stderr]\n" + trim(result.stderr, self.max_chars))
        if result.timed_out:
            parts.append(f"[timed out after {self.sandbox.limits.timeout_s:g} s]")
        elif result.exit_code != 0:
            parts.append(f"[exit code {result.exit_code}{' ' + result.signal if result.signal else ''}]")
        return "\n".join(parts) or "[no output]"
