"""The sandbox contains hostile programs and keeps answering (real processes, real kernel limits)."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

import pytest

from verifier.backends import DATA_DIR
from verifier.sandbox import PythonTool, Sandbox, SandboxLimits, trim
from verifier.sandbox_fs import allowed_minus, landlock_abi

# What a sandboxed program tries to read, and must not: the task data, the project's source, the
# verifier's process, the venv and home directories, and (filled in by the test) another run's files.
PRIVATE_READS = {
    "task_file": str(DATA_DIR / "code" / "tasks.jsonl"),
    "project_source": str(Path(__file__).resolve().parents[3] / "verifier" / "sandbox.py"),
    "venv": str(Path(sys.prefix) / "pyvenv.cfg"),
    "root_home": "/root/.bashrc",
}
READ_PROBE = """
import os, sys
for name, path in {paths!r}.items():
    try:
        with open(path, "rb") as handle:
            print(name, "READ", len(handle.read()))
    except OSError as exc:
        print(name, type(exc).__name__)
for name, path in [("listing_tmp", "/tmp"), ("listing_project", {project!r})]:
    try:
        print(name, "READ", len(os.listdir(path)))
    except OSError as exc:
        print(name, type(exc).__name__)
import json, decimal, fractions, collections, statistics
open("mine.txt", "w").write("ok")
print("own_file", open("mine.txt").read())
print("stdlib", json.dumps(statistics.mean([1, 2])))
"""


def _probe_reads(result_stdout: str) -> dict[str, str]:
    return {line.split()[0]: line.split()[1] for line in result_stdout.splitlines() if line.strip()}


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox(SandboxLimits(timeout_s=2.0, memory_mb=256, max_output_bytes=10_000))


async def test_plain_program_runs(sandbox: Sandbox) -> None:
    result = await sandbox.run("import sys\nprint(sum(map(int, sys.stdin.read().split())))", stdin="2 3 4")
    assert result.ok and result.stdout == "9\n"
    assert "audit-hook" in result.isolation


async def test_hostile_programs_are_contained_concurrently(sandbox: Sandbox, tmp_path: Path) -> None:
    outside = tmp_path / "escaped.txt"
    os.chmod(tmp_path, 0o777)  # world-writable, so only the sandbox's own guards can stop the write
    os.environ["MEDVERIFIER_TEST_SECRET"] = "s3cr3t-token"
    programs = {
        "loop": "while True:\n    pass",
        "fork_bomb": "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        "memory": "blocks = []\nwhile True:\n    blocks.append(bytearray(50 * 1024 * 1024))",
        "write_outside": f"open({str(outside)!r}, 'w').write('pwned')",
        "os_open_outside": f"import os\nos.open({str(outside)!r}, os.O_CREAT | os.O_WRONLY)",
        "network": "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)",
        "secrets": "import os\nprint(sorted(os.environ))\nprint(open(f'/proc/{os.getppid()}/environ').read())",
        "huge_output": "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)",
        "subprocess": "import subprocess\nsubprocess.run(['sh', '-c', 'echo hi > /tmp/x'])",
    }
    results = dict(zip(programs, await asyncio.gather(*(sandbox.run(p) for p in programs.values())), strict=True))

    assert results["loop"].timed_out and results["loop"].signal == "SIGKILL"
    assert results["fork_bomb"].timed_out or results["fork_bomb"].exit_code != 0
    assert results["memory"].exit_code != 0 and "MemoryError" in results["memory"].stderr
    assert not outside.exists()
    assert "PermissionError" in results["write_outside"].stderr
    assert "PermissionError" in results["os_open_outside"].stderr
    assert results["network"].exit_code != 0
    assert "s3cr3t" not in results["secrets"].stdout
    assert "MEDVERIFIER_TEST_SECRET" not in results["secrets"].stdout
    assert "Permission denied" in results["secrets"].stderr  # the parent's /proc environ (other uid)
    huge = results["huge_output"]
    assert huge.stdout_truncated and len(huge.stdout) == 10_000 and not huge.timed_out
    assert "refused" in results["subprocess"].stderr
    # no process of the fork bomb survives, and the sandbox still answers
    after = await sandbox.run("print('still here')")
    assert after.ok and after.stdout == "still here\n"


async def test_kernel_layer_network_namespace_and_uid(sandbox: Sandbox) -> None:
    # Looks at what the kernel gives the process: a throw-away uid and a namespace with only loopback
    # (asked through netlink: /proc is not readable under Landlock).
    result = await sandbox.run("import os, socket\nprint(os.getuid())\nprint([n for _, n in socket.if_nameindex()])")
    uid, _, net = result.stdout.partition("\n")
    if os.geteuid() == 0:  # CI and this machine run as root: the full kernel layer must be there
        assert 61000 <= int(uid) < 62000
        assert net.strip() == "['lo']"
        assert "netns" in result.isolation
    else:
        assert int(uid) == os.getuid() and "uid=" not in result.isolation


async def test_cpu_limit_kills_even_without_wall_timeout() -> None:
    box = Sandbox(SandboxLimits(timeout_s=10, cpu_s=1))
    result = await box.run("while True:\n    pass")
    assert not result.timed_out and result.signal in {"SIGXCPU", "SIGKILL"}
    assert result.duration_s < 5


async def test_python_tool_reports_output_and_errors(sandbox: Sandbox) -> None:
    tool = PythonTool(sandbox)
    assert (await tool("print(6 * 7)")).strip() == "42"
    observation = await tool("raise ValueError('boom')")
    assert "ValueError: boom" in observation and "[exit code 1]" in observation


def test_trim_keeps_head_and_tail() -> None:
    text = "a" * 100 + "b" * 100
    out = trim(text, 20)
    assert out.startswith("a" * 10) and out.endswith("b" * 10) and "180 chars trimmed" in out


def _other_run_file() -> Path:
    """A world-readable file in the temp dir, like another run's program or a copied task file."""
    folder = Path(tempfile.mkdtemp(prefix="mv-sandbox-other-"))
    os.chmod(folder, 0o755)
    secret = folder / "main.py"
    secret.write_text("assert f(1) == 'EXPECTED'\n")
    os.chmod(secret, 0o644)
    return secret


async def test_programs_cannot_read_the_project_the_tasks_or_other_runs(sandbox: Sandbox) -> None:
    if not sandbox.reads_are_confined:
        pytest.fail(
            "file reading is not prevented here: no Landlock (kernel ABI "
            f"{landlock_abi()}) and no mount namespace (needs root; euid {os.geteuid()}), so a program "
            "can read the task files and score without solving them"
        )
    other = _other_run_file()
    try:
        paths = {**PRIVATE_READS, "other_run": str(other)}
        project = str(Path(__file__).resolve().parents[3])
        result = await sandbox.run(READ_PROBE.format(paths=paths, project=project))
    finally:
        other.unlink()
        other.parent.rmdir()
    seen = _probe_reads(result.stdout)
    assert result.ok, result.stderr
    for name in [*paths, "listing_tmp", "listing_project"]:
        assert seen[name] in {"PermissionError", "FileNotFoundError"}, (name, seen[name], sandbox.fs_mechanism)
    assert seen["own_file"] == "ok" and seen["stdlib"] == "1.5"  # what a program needs still works
    assert f"fs:{sandbox.fs_mechanism}" in result.isolation


async def test_landlock_is_used_where_the_kernel_has_it(sandbox: Sandbox) -> None:
    if landlock_abi() == 0:
        pytest.fail("this kernel has no Landlock: only the mount-namespace fallback (root) can hide files")
    assert sandbox.fs_mechanism == "landlock"
    result = await sandbox.run("print(open('/proc/self/cmdline').read())")
    assert "PermissionError" in result.stderr  # no /proc: the prologue and its config are not readable either
    assert f"fs:landlock-abi{landlock_abi()}" in result.isolation


async def test_mount_namespace_fallback_hides_the_project_and_the_temp_dir() -> None:
    if os.geteuid() != 0:
        pytest.skip("the mount-namespace fallback needs root; as a non-root user only Landlock can hide files")
    box = Sandbox(SandboxLimits(timeout_s=5.0), fs_isolation="mountns")
    other = _other_run_file()
    try:
        paths = {**PRIVATE_READS, "other_run": str(other)}
        result = await box.run(READ_PROBE.format(paths=paths, project=str(Path(__file__).resolve().parents[3])))
    finally:
        other.unlink()
        other.parent.rmdir()
    seen = _probe_reads(result.stdout)
    assert result.ok, result.stderr
    for name in [*paths, "listing_project"]:
        assert seen[name] in {"PermissionError", "FileNotFoundError"}, (name, seen[name])
    assert seen["own_file"] == "ok" and "fs:mountns" in result.isolation


async def test_without_fs_isolation_the_isolation_string_says_so() -> None:
    box = Sandbox(SandboxLimits(timeout_s=5.0), fs_isolation="off")
    result = await box.run(f"print(len(open({PRIVATE_READS['task_file']!r}).read()) > 0)")
    assert not box.reads_are_confined and "fs" not in result.isolation
    assert result.stdout.strip() == "True"  # which is exactly what the confined sandbox prevents


def test_an_allowed_root_above_a_private_path_is_replaced_by_its_other_children(tmp_path: Path) -> None:
    for folder in ("lib/a", "lib/site/project", "lib/site/other", "share"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "lib" / "b.so").write_text("")
    allowed = allowed_minus([str(tmp_path / "lib"), str(tmp_path / "lib" / "a"), str(tmp_path / "share")],
                            [str(tmp_path / "lib" / "site" / "project")])
    assert allowed == [str(tmp_path / p) for p in ("lib/a", "lib/b.so", "lib/site/other", "share")]
