"""One interrupt of a real command, checked for every promise an interrupt makes: exit 130,
one line on stderr, no C++ abort, no process of its group left, no partial output set.
Used by tests/test_interrupts.py and by bench/soak_interrupts.py (many random moments)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "attention_explainer.cli"]
WORK_PREFIX = ".attention-explainer-"        # our staging folders and claims


TINY = ["--resolution", "160x90", "--fps", "5"]
SENTENCES = ["The cat sat on the mat", "Le chat a mangé le poisson", "The dog chased the ball"]
KINDS = ("batch", "pack", "render", "frames", "model", "narrated")


def command_for(kind: str, work: Path, *, explainers: int = 3) -> tuple[list[str], Path]:
    """The command line of ``kind`` (its inputs made in ``work``) and the folder its
    outputs go to: a course of ``explainers``, a pack, a render, stills, a trace of a
    local model folder (loading it is the work), a render with a recorded narration."""
    out = work / "out"
    if kind == "batch":
        course = work / "course.toml"
        course.write_text('[defaults]\nresolution = "160x90"\nfps = 5\nbeats = ["title", '
                          '"embed"]\n' + "".join(
                              f'[[explainer]]\nsentence = "{s}"\noutput = "e{n}"\n'
                              for n, s in enumerate(SENTENCES[:explainers])), encoding="utf-8")
        return ["batch", str(course), "--out", str(out), "--jobs", "2",
                "--cache-dir", str(work / "cache")], out
    if kind == "pack":
        return ["pack", "The cat ate the fish", "--beats", "title,embed", *TINY,
                "--out", str(out / "pack")], out
    if kind == "render":
        return ["render", "The cat ate the fish", "--beats", "title,embed", *TINY,
                "-o", str(out / "talk.mp4")], out
    if kind == "frames":
        return ["frames", "The cat ate the fish", "--beat", "title,embed",
                "--resolution", "320x180", "--out", str(out / "stills")], out
    if kind == "model":
        folder = work / "model"
        if not folder.exists():
            from tests import tiny_models

            tiny_models.build("llama", folder)
        return ["inspect", "The animal didn't cross the street", "--model", str(folder),
                "--heads", "all", "--npz", str(out / "trace.npz")], out
    if kind == "narrated":
        voice = work / "voice"
        if not voice.exists():
            voice.mkdir()
            for beat, pitch in (("title", 220.0), ("embed", 330.0)):
                _tone(voice / f"{beat}.wav", pitch, seconds=3.0)
        return ["render", "The cat ate the fish", "--beats", "title,embed", *TINY,
                "--narration", str(voice), "-o", str(out / "talk.mp4")], out
    raise ValueError(f"unknown command kind {kind!r}")


def _tone(path: Path, pitch: float, *, seconds: float, rate: int = 16000) -> None:
    """A quiet sine as a recording (16-bit mono WAV)."""
    import wave

    import numpy as np

    t = np.arange(int(seconds * rate)) / rate
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((0.2 * 32767 * np.sin(2 * np.pi * pitch * t)).astype("<i2").tobytes())


def group_empties(pid: int, within: float = 30.0) -> bool:
    """Whether the process group ``pid`` has no process left within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def partial_files(out: Path) -> list[str]:
    """What an interrupted run may not leave in ``out``: staging folders, claims and
    ``.part`` files of ours, and any output set that lacks a member (an MP4 without its
    .srt, a pack without index.html...)."""
    if not out.exists():
        return []
    problems = [str(p) for p in out.rglob("*")
                if p.name.startswith(WORK_PREFIX) or p.name.endswith(".part")
                or ".part." in p.name]
    for video in out.rglob("*.mp4"):
        if video.parent.name == "clips" or WORK_PREFIX in str(video):
            continue
        for sidecar in (".srt", ".png"):
            if not video.with_suffix(sidecar).is_file():
                problems.append(f"{video} without its {sidecar}")
    for clips in out.rglob("clips"):
        if not (clips.parent / "index.html").is_file():
            problems.append(f"{clips.parent}: a pack without index.html")
    return problems


def catches(pid: int, sig, within: float = 60.0) -> None:
    """Wait until process ``pid`` handles ``sig`` itself (/proc's SigCgt): the program's
    first line has run. Before it, Python alone is there to answer (see the README)."""
    deadline = time.monotonic() + within
    bit = 1 << (int(sig) - 1)
    while time.monotonic() < deadline:
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return
        caught = next((line.split()[1] for line in status.splitlines()
                       if line.startswith("SigCgt:")), "0")
        if int(caught, 16) & bit:
            return
        time.sleep(0.005)


def interrupt_check(argv: list[str], out: Path, *, after: float, sig=signal.SIGINT,
                    env=None, timeout: float = 300, from_our_first_line: bool = True) -> dict:
    """Run ``attention-explainer ARGV``, send ``sig`` to its whole group ``after`` seconds
    (counted from the program's first line, as :func:`catches` sees it) in, as a
    terminal's Ctrl-C does, and say which promises broke (``problems``)."""
    proc = subprocess.Popen(CLI + list(argv), cwd=ROOT, text=True, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    if from_our_first_line:    # SIGTERM: Python itself handles SIGINT from its own start
        catches(proc.pid, signal.SIGTERM)
    time.sleep(after)
    finished_first = proc.poll() is not None
    if not finished_first:
        os.killpg(proc.pid, sig)
    try:
        _, err = proc.communicate(timeout=timeout)
        # the signal came as it was exiting, its work done and said: nothing to interrupt;
        # or just after its files were committed whole, which the one line then says
        written_first = proc.returncode == 130 and "interrupted after writing" in err \
            and len(err.splitlines()) == 1
        finished_first |= (proc.returncode == 0 and "interrupted" not in err) or written_first
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        return {"after": round(after, 2), "returncode": None, "finished_first": False,
                "problems": [f"still running {timeout:.0f} s after the signal"]}
    problems = []
    if not finished_first:
        if proc.returncode != 130:
            problems.append(f"exit {proc.returncode}, not 130")
        lines = err.splitlines()       # a blank line is a line too
        if len(lines) != 1 or "Traceback" in err or "terminate called" in err:
            problems.append(f"stderr is not one line: {err.strip()[-400:]!r}")
    elif proc.returncode != 0 and not written_first:
        problems.append(f"finished before the signal with exit {proc.returncode}: "
                        f"{err.strip()[-300:]!r}")
    if not group_empties(proc.pid):
        problems.append("processes of the command were left running")
    problems += partial_files(out)
    return {"after": round(after, 2), "returncode": proc.returncode,
            "finished_first": finished_first, "problems": problems,
            "stderr": err.strip()[-400:]}


# run in a fresh interpreter: notes, at the first import of each native stack, whether the
# program holds Ctrl-C then (its SIGINT handler is not Python's own), and leaves as soon as
# every stack asked for has loaded
_FIRST_IMPORTS = r"""
import builtins, json, os, signal, sys
wanted = set(json.loads(sys.argv[1]))
held, original = {}, builtins.__import__
def noting(name, globals=None, locals=None, fromlist=(), level=0):
    top = name.split(".")[0] if level == 0 else None
    first = top in wanted and top not in held and top not in sys.modules
    if first:
        held[top] = signal.getsignal(signal.SIGINT) not in (signal.default_int_handler,
                                                             signal.SIG_DFL)
    module = original(name, globals, locals, fromlist, level)
    if first and set(held) == wanted:
        os.write(1, json.dumps(held).encode())
        os._exit(0)
    return module
builtins.__import__ = noting
from attention_explainer import cli
cli.main(sys.argv[2:])
"""


def first_imports(argv: list[str], stacks: list[str], *, cwd: Path, env=None) -> dict:
    """Whether ``attention-explainer ARGV`` holds interrupts at its first import of each
    of ``stacks`` (a module that is never imported is missing from the answer)."""
    import json

    done = subprocess.run([sys.executable, "-c", _FIRST_IMPORTS, json.dumps(stacks), *argv],
                          cwd=cwd, capture_output=True, text=True, timeout=300, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else {}


def terminal_screen(raw: str) -> list[str]:
    """The lines a terminal shows after ``raw`` (what a program wrote to it), empty ones
    left out: enough of a terminal for a progress bar's redraws (carriage return, line
    feed, cursor up, erase in line); colours and other sequences draw nothing."""
    import re

    lines, row, col = [""], 0, 0
    for part in re.split(r"(\x1b\[[0-9;?]*[A-Za-z]|\r|\n)", raw):
        if part == "\r":
            col = 0
        elif part == "\n":
            row, col = row + 1, 0
            lines += [""] * (row + 1 - len(lines))
        elif part.startswith("\x1b["):
            command, argument = part[-1], part[2:-1]
            if command == "A":
                row = max(0, row - int(argument or 1))
            elif command == "K":
                lines[row] = "" if argument == "2" else lines[row][:col]
        elif part:
            line = lines[row].ljust(col)
            lines[row] = line[:col] + part + line[col + len(part):]
            col += len(part)
    return [line for line in lines if line.strip()]


def interrupted_on_a_terminal(argv: list[str], *, shown: str, env=None,
                              timeout: float = 120) -> tuple[int, str]:
    """Run ``attention-explainer ARGV`` on a pseudo-terminal, send SIGINT to its group once
    it has written ``shown`` (its progress bar is up), and return (exit code, everything
    it wrote to the terminal)."""
    import pty
    import select

    pid, fd = pty.fork()
    if pid == 0:                      # the child: the program, its terminal the pty
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "attention_explainer.cli", *argv],
                  dict(env or os.environ, COLUMNS="120", TERM="xterm"))
    written, sent, deadline = b"", False, time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not sent and shown.encode() in written:
            os.killpg(os.getpgid(pid), signal.SIGINT)
            sent = True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:           # the program has gone: its side of the pty closed
                break
            if not chunk:
                break
            written += chunk
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), written.decode("utf-8", "replace")
