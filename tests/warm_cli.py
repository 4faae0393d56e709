"""The command line as real processes that start warm: a process that has imported manim
and torch once forks one child per command, and the child runs the command as the console
script would (its own process, folder, variables and exit code; our package imported
afresh in it, from the folder first as ``python -m`` finds it). A test that runs many
commands in a row (the README's examples) saves the imports each would pay (measured:
about 1.3 s of CPU per command; the README's test went from 212 s to 160 s).

Only third-party modules are imported ahead: what our code reads of the variables and the
folder as it loads, it reads in the child, as in a fresh process. Not for the tests of
signals and of start-up itself: those start the real program (``conftest.run_process``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# imported once, before any fork: the slow imports that read nothing of ours
PRELOAD = ("numpy", "PIL.Image", "av", "click", "manim", "torch")

_SERVER = r"""
import json, os, sys
for name in sys.argv[1:]:
    __import__(name)
requests, replies = sys.stdin, sys.stdout
for line in requests:
    ask = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(ask["cwd"])
            os.environ.clear()
            os.environ.update(ask["env"])
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            for fd, path in ((1, ask["stdout"]), (2, ask["stderr"])):
                os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
            sys.argv = ["attention-explainer", *ask["argv"]]
            from attention_explainer import cli
            cli.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:
            import traceback
            traceback.print_exc()
            code = 1
        else:
            code = 0
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    replies.write(json.dumps({"pid": pid}) + "\n")
    replies.flush()
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")
    replies.flush()
"""


class WarmCli:
    """``run(*args, cwd=..., env=..., timeout=...)`` like ``conftest.run_process``, each
    command forked from one warm process; ``close()`` ends that process."""

    def __init__(self):
        self.scratch = Path(tempfile.mkdtemp(prefix="warm-cli-"))
        self.server = subprocess.Popen([sys.executable, "-c", _SERVER, *PRELOAD],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True, cwd=self.scratch)

    def run(self, *args, cwd, env=None, timeout=600) -> subprocess.CompletedProcess:
        out, err = self.scratch / "stdout", self.scratch / "stderr"
        ask = {"argv": [str(a) for a in args], "cwd": str(cwd),
               "env": dict(os.environ if env is None else env),
               "stdout": str(out), "stderr": str(err)}
        self.server.stdin.write(json.dumps(ask) + "\n")
        self.server.stdin.flush()
        pid = json.loads(self.server.stdout.readline())["pid"]
        import threading

        fired = []

        def stop():
            fired.append(pid)
            os.kill(pid, 9)

        late = threading.Timer(timeout, stop)
        late.start()
        code = json.loads(self.server.stdout.readline())["code"]
        late.cancel()
        if fired:
            raise subprocess.TimeoutExpired(["attention-explainer", *ask["argv"]], timeout)
        return subprocess.CompletedProcess(["attention-explainer", *ask["argv"]], code,
                                           out.read_text(encoding="utf-8", errors="replace"),
                                           err.read_text(encoding="utf-8", errors="replace"))

    def close(self) -> None:
        import shutil

        self.server.stdin.close()
        self.server.wait(timeout=60)
        shutil.rmtree(self.scratch, ignore_errors=True)


_SHARED: list[WarmCli] = []      # this test process's own, started at its first use


def shared() -> WarmCli:
    """The test process's one WarmCli (``conftest.run_warm``), started when first asked."""
    if not _SHARED:
        _SHARED.append(WarmCli())
    return _SHARED[0]


def close_shared() -> None:
    """End the test process's WarmCli, if it started one (at the end of the run)."""
    while _SHARED:
        _SHARED.pop().close()
