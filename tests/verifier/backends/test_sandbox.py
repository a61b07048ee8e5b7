"""The sandbox contains hostile programs and keeps answering (real processes, real kernel limits)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from verifier.sandbox import PythonTool, Sandbox, SandboxLimits, trim


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
    # Looks at what the kernel gives the process: a throw-away uid and a namespace with only loopback.
    result = await sandbox.run("import os\nprint(os.getuid())\nprint(open('/proc/self/net/dev').read())")
    uid, _, net = result.stdout.partition("\n")
    interfaces = [line.split(":")[0].strip() for line in net.splitlines()[2:] if line.strip()]
    if os.geteuid() == 0:  # CI and this machine run as root: the full kernel layer must be there
        assert 61000 <= int(uid) < 62000
        assert interfaces == ["lo"]
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
