"""What a sandboxed program may read: Landlock where the kernel has it, else a mount namespace.

A reward program must not read the task files (they hold the expected values), the project's
source and data, the verifier's venv, home directories, or other runs' temporary directories.

* **Landlock** (preferred; root or not; x86_64 syscalls 444-446 through ctypes, applied by the
  sandbox's prologue before the program runs, with ``PR_SET_NO_NEW_PRIVS``): an allowlist. The
  program may read the interpreter's standard library, ``/usr`` and ``/lib*``, a few ``/etc`` files
  (``ld.so.cache``, ``localtime``, ``passwd``, ...), ``/dev/urandom``; write ``/dev/null``; and do
  anything inside its own work directory. Everything else the ABI can name is denied: ``/proc`` (so
  its own command line too), ``/tmp``, the project, the venv (so site-packages are not importable:
  programs get the standard library only), ``/root``. A root above a private path (say the project is
  installed under ``/usr``) is replaced by its other children. ABI >= 4 also denies TCP bind/connect,
  ABI >= 6 scopes signals and abstract unix sockets to the sandbox.
* **Mount namespace** (root only, when Landlock is missing): a blocklist. tmpfs over the project,
  the venv, the top directory around them (``/work``), ``/root``, ``/home``, the temp dir (the run's
  own work directory is bound back in), ``/var/tmp``, ``/dev/shm``, ``/srv``, ``/mnt``, ``/media``,
  ``/opt``. ``/proc`` stays readable (it holds nothing secret: see the prologue's comment).
* **None** (non-root, no Landlock): file reading is *not* prevented; the sandbox's isolation string
  then has no ``fs:`` entry and the file-reading test fails saying why.

Each mechanism is probed once per interpreter by running the real prologue and checking that it
hides this very file.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Literal

from verifier.data import data_dir

logger = logging.getLogger(__name__)

# Spliced into the sandbox's prologue (it runs in the child, before the untrusted program).
BOOT_FS = r'''
def _fail(what):
    sys.stderr.write(f"sandbox: {what} failed\n")
    os._exit(125)

def _mountns(libc, hide, workdir):
    # A private copy of the mount table with tmpfs over the private directories; the run's own
    # work directory is bound back in when it lies under one of them (the temp dir does).
    if libc.mount(None, b"/", None, 0x4000 | 0x40000, None) != 0:  # MS_REC | MS_PRIVATE
        _fail("making the mount namespace private")
    stdlib = os.path.dirname(os.__file__)
    wfd, rebind = os.open(workdir, os.O_PATH), False
    for path in sorted(set(hide), key=len):
        if not os.path.isdir(path) or stdlib == path or stdlib.startswith(path + "/"):
            continue
        if libc.mount(b"tmpfs", path.encode(), b"tmpfs", 2 | 4, b"mode=0755,size=64k") != 0:
            _fail(f"hiding {path}")
        rebind = rebind or workdir.startswith(path + "/")
    if rebind:
        os.makedirs(workdir, exist_ok=True)
        if libc.mount(f"/proc/self/fd/{wfd}".encode(), workdir.encode(), None, 0x1000 | 0x4000, None) != 0:
            _fail("binding the work directory")
        os.chdir(workdir)
    os.close(wfd)

def _landlock(abi, read, devices, workdir):
    # landlock_create_ruleset / add_rule / restrict_self (x86_64 syscalls 444-446): everything the
    # ABI can handle is denied except reading the listed paths and anything in the work directory.
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    everything = (1 << 13) - 1 | (1 << 13 if abi >= 2 else 0) | (1 << 14 if abi >= 3 else 0) \
        | (1 << 15 if abi >= 5 else 0)
    file_rights = everything & (1 | 2 | 4 | 1 << 14 | 1 << 15)
    attr = (ctypes.c_uint64 * 3)(everything, 3 if abi >= 4 else 0, 3 if abi >= 6 else 0)
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8  # + TCP bind/connect (4), + scopes (6)
    ruleset = libc.syscall(444, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        _fail("landlock_create_ruleset")

    class _Beneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def allow(path, rights):
        try:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except OSError:
            return
        try:
            if os.fstat(fd).st_mode & 0o170000 != 0o040000:
                rights &= file_rights
            if libc.syscall(445, ruleset, 1, ctypes.byref(_Beneath(rights, fd)), 0) != 0:
                _fail(f"landlock_add_rule {path}")
        finally:
            os.close(fd)

    for path in read:
        allow(path, 1 | 4 | 8)  # EXECUTE | READ_FILE | READ_DIR
    for path in devices:
        allow(path, 2 | 4 | (1 << 14 if abi >= 3 else 0))  # WRITE_FILE | READ_FILE | TRUNCATE
    allow(workdir, everything)
    if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.syscall(446, ruleset, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        _fail("landlock_restrict_self")
    os.close(ruleset)
'''

# What a Landlock-confined program may read besides its work directory and the interpreter's own
# standard library: system libraries and a few /etc files; never /proc, /tmp, a home directory or
# the project (a root that contains the project is replaced by its other children).
_LANDLOCK_READ = (
    "/usr", "/lib", "/lib64", "/lib32", "/etc/ld.so.cache", "/etc/localtime", "/etc/timezone",
    "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/mime.types", "/dev/urandom", "/dev/random",
)
_LANDLOCK_DEVICES = ("/dev/null", "/dev/zero")
_SYSTEM_TOPS = {"/", "/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev", "/run", "/var"}
FsIsolation = Literal["auto", "landlock", "mountns", "off"]


def landlock_abi() -> int:
    """The kernel's Landlock ABI version, 0 when it has none (landlock_create_ruleset(NULL, 0, VERSION))."""
    if sys.platform != "linux" or os.uname().machine != "x86_64":
        return 0  # the syscall numbers below are x86_64's
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return max(0, int(libc.syscall(444, None, ctypes.c_size_t(0), ctypes.c_uint32(1))))


def private_paths() -> list[str]:
    """What a sandboxed program must never read: the project (its source, data, task files, venv)."""
    project = Path(__file__).resolve().parents[1]
    paths = {str(project), str(data_dir())}  # the data folder too, wherever installed or pointed to
    if sys.prefix != sys.base_prefix:
        paths.add(str(Path(sys.prefix).resolve()))  # the verifier's own virtual environment
    return sorted(paths)


def allowed_minus(roots: list[str], private: list[str]) -> list[str]:
    """``roots`` with every private path cut out: a root above one is replaced by its other children."""
    out: list[str] = []

    def add(path: str) -> None:
        if path in private:
            return
        if not any(p.startswith(path.rstrip("/") + "/") for p in private):
            out.append(path)
            return
        try:
            children = sorted(os.listdir(path))
        except OSError:
            return
        for name in children:
            add(os.path.join(path, name))

    resolved = sorted({os.path.realpath(r) for r in roots if os.path.exists(r)})
    for root in resolved:
        if not any(root.startswith(other.rstrip("/") + "/") for other in resolved if other != root):
            add(root)
    return out


_STDLIB: dict[str, str | None] = {}
_FS_PROBE: dict[tuple[str, str], bool] = {}


def _stdlib_of(python: str) -> str | None:
    if python not in _STDLIB:
        try:
            done = subprocess.run([python, "-I", "-c", "import os; print(os.path.dirname(os.__file__))"],
                                  timeout=10, capture_output=True, text=True)
            _STDLIB[python] = done.stdout.strip() if done.returncode == 0 else None
        except (OSError, subprocess.TimeoutExpired):
            _STDLIB[python] = None
    return _STDLIB[python]


def fs_config(mechanism: str, python: str, extra_private: list[str]) -> dict[str, object]:
    private = sorted({*private_paths(), *(os.path.realpath(p) for p in extra_private)})
    if mechanism == "landlock":
        stdlib = _stdlib_of(python)
        roots = [*_LANDLOCK_READ, *([stdlib] if stdlib else [])]
        return {"mechanism": "landlock", "abi": landlock_abi(), "read": allowed_minus(roots, private),
                "devices": list(_LANDLOCK_DEVICES)}
    if mechanism == "mountns":
        hide = {*private, tempfile.gettempdir(), "/root", "/home", "/srv", "/mnt", "/media", "/opt",
                "/var/tmp", "/dev/shm"}
        for path in private:  # also the top-level directory around the project (/work for /work/main)
            top = "/" + Path(path).parts[1] if len(Path(path).parts) > 1 else "/"
            if top not in _SYSTEM_TOPS:
                hide.add(top)
        return {"mechanism": "mountns", "hide": sorted(hide)}
    return {"mechanism": "none"}


def _works(python: str, mechanism: str, boot: str) -> bool:
    """Whether ``mechanism`` really hides this file from a program (probed once per interpreter)."""
    key = (python, mechanism)
    if key not in _FS_PROBE:
        ok = False
        if (mechanism == "landlock" and landlock_abi() > 0) or (mechanism == "mountns" and os.geteuid() == 0):
            with tempfile.TemporaryDirectory(prefix="mv-sandbox-probe-") as work:
                config = {"netns": False, "rlimits": {}, "uid": None, "workdir": work, "report_fd": -1,
                          "fs": fs_config(mechanism, python, []), "probe": str(Path(__file__).resolve())}
                try:
                    done = subprocess.run([python, "-I", "-c", boot, repr(config)], timeout=10,
                                          capture_output=True, cwd=work)
                    ok = done.returncode == 0
                except (OSError, subprocess.TimeoutExpired):
                    ok = False
        _FS_PROBE[key] = ok
    return _FS_PROBE[key]


def resolve(python: str, wanted: FsIsolation, boot: str) -> str:
    """The mechanism to use: the first of ``wanted``'s that really hides a project file from ``boot``."""
    order = {"auto": ("landlock", "mountns"), "landlock": ("landlock",), "mountns": ("mountns",), "off": ()}
    for mechanism in order[wanted]:
        if _works(python, mechanism, boot):
            return mechanism
    if wanted in ("landlock", "mountns"):
        raise RuntimeError(f"sandbox: file-system isolation {wanted!r} is not available here")
    if wanted == "auto":
        logger.warning("no Landlock and no mount namespace: sandboxed programs can read any file their uid can")
    return "none"
