"""Process figures of the benchmarks: resident memory and CPU time from /proc,
py-spy profiles of the service processes and their summaries (bench/load.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any


def rss_mb(pid: int) -> float | None:
    """Resident memory of ``pid`` in MiB (``None`` once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Leaf frames of a waiting thread: the event loop's select, gRPC's poller
#: thread, aiosqlite's worker waiting for work.
IDLE_FRAMES = ("EpollSelector.select", "_PollLikeSelector.select", "Thread.run (threading",
               "_connection_worker_thread (aiosqlite/core.py:59)", "_worker (concurrent")


def summarise_profile(path: Path, top: int = 12) -> list[str]:
    """The hottest functions of a py-spy ``raw`` (collapsed stacks) file: own
    samples (the leaf frame) and inclusive samples, as text lines."""
    own: Counter[str] = Counter()
    incl: Counter[str] = Counter()
    total = idle = 0
    if not path.exists():
        return [f"(no profile at {path})"]
    for line in path.read_text(errors="replace").splitlines():
        stack, _, n = line.rpartition(" ")
        if not stack or not n.isdigit():
            continue
        count = int(n)
        frames = stack.split(";")
        if any(frames[-1].startswith(i) for i in IDLE_FRAMES):
            idle += count
            continue
        total += count
        own[frames[-1]] += count
        for f in set(frames):
            incl[f] += count
    if not total:
        return ["(no samples)"]
    lines = [f"{total} busy samples ({idle} idle left out); own time:"]
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in own.most_common(top)]
    lines.append("inclusive:")
    lines += [f"  {100 * c / total:5.1f}%  {f}" for f, c in incl.most_common()
              if any(m in f for m in ("services/", "paiju/", "nats/", "websockets/", "grpc/"))
              and "paiju/cli.py" not in f and "paiju/runtime/service.py" not in f][:top]
    return lines



def start_profiles(folder: Path | None, tables: int, seconds: float,
                   pids: dict[str, int], suffix: str = "",
                   services: tuple[str, ...] = ("gateway", "table", "lobby"),
                   ) -> list[tuple[str, Path, Any]]:
    """py-spy ``record`` (raw collapsed stacks, 50 Hz, non-blocking) of every
    process of ``pids`` (name -> pid) whose name starts with one of
    ``services`` for ``seconds`` (SIGINT ends one sooner, its samples kept),
    into ``folder/<name>-<tables><suffix>.txt``; nothing without a folder."""
    if folder is None:
        return []
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, pid in pids.items():
        if not name.startswith(services):
            continue
        path = folder / f"{name}-{tables}{suffix}.txt"
        proc = subprocess.Popen([spy, "record", "--pid", str(pid), "--format", "raw",
                                 "--rate", "50", "--nonblocking", "--duration",
                                 str(max(1, int(seconds) - 1)), "--output", str(path)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out.append((name, path, proc))
    return out


def stop_profiles(profilers: list[tuple[str, Path, Any]],
                  log: Callable[[str], None]) -> dict[str, str]:
    """Wait for the profilers of :func:`start_profiles`, ``log`` each summary;
    file stem (``lobby-500-ramp``) -> profile file."""
    out = {}
    for name, path, proc in profilers:
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.wait(10)
        log(f"--- profile of {name} ({path.name}) ---")
        for line in summarise_profile(path):
            log(line)
        out[path.stem] = str(path)
    return out
