"""The Dask cluster a course runs on admits only this process, serves no dashboard unless
asked, and a scheduler address is checked up front: its form (exit 2 at once) and whether
anything answers there (exit 2 within the stated wait)."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT, run_warm
from tests.conftest import assert_refused as one_line

COURSE = ROOT / "examples" / "course.toml"

PROBE = textwrap.dedent('''
    import asyncio, json, sys, urllib.error, urllib.request

    from distributed.comm import connect
    from distributed.security import Security

    from attention_explainer.app.cluster import course_client


    def status(host, port, path):
        try:
            return urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=5).status
        except urllib.error.HTTPError as exc:
            return exc.code


    async def answers(address, security):
        """Whether the scheduler answers a client holding ``security``'s credentials."""
        try:
            comm = await connect(address, timeout="3s", **security.get_connection_args("client"))
            await comm.write({"op": "identity"})
            reply = await asyncio.wait_for(comm.read(), 3)
            await comm.close()
            return reply.get("type") == "Scheduler"
        except Exception:
            return False


    def main(dashboard):
        with course_client(1, dashboard=dashboard) as client:
            address = client.scheduler.address
            sockets = client.cluster.scheduler.http_server._sockets.values()
            (host, port), = {s.getsockname()[:2] for s in sockets}
            print(json.dumps({
                "address": address, "http_host": host,
                "pages": {p: status(host, port, p) for p in ("/status", "/health", "/info/main/workers.html")},
                "plain client refused": not asyncio.run(answers(address, Security())),
                "other credentials refused": not asyncio.run(
                    answers(address, Security.temporary())),
                "own credentials answered": asyncio.run(answers(address, client.security)),
                "own client works": client.submit(sum, [1, 2]).result() == 3,
            }))


    if __name__ == "__main__":
        main(sys.argv[1] == "dashboard")
''')


def probe(tmp_path, dashboard: bool) -> dict:
    import json

    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    proc = subprocess.run([sys.executable, str(script), "dashboard" if dashboard else "none"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_local_cluster_admits_only_this_process_and_serves_no_pages(tmp_path):
    found = probe(tmp_path, dashboard=False)
    assert found["address"].startswith("tls://127.0.0.1:")
    assert found["http_host"] == "127.0.0.1"
    assert set(found["pages"].values()) == {404}, found["pages"]
    assert found["plain client refused"] and found["other credentials refused"]
    assert found["own credentials answered"] and found["own client works"]


def test_a_dashboard_only_when_asked_and_on_loopback(tmp_path):
    pytest.importorskip("bokeh")
    found = probe(tmp_path, dashboard=True)
    assert found["http_host"] == "127.0.0.1" and found["pages"]["/status"] == 200
    assert found["plain client refused"]


@pytest.mark.parametrize("address", ["render-box", "render-box:8786", "http://render-box:8786",
                                     "tcp://render-box", "tcp://render-box:0",
                                     "tcp://render-box:70000", "tcp://:8786", "tls://a b:1"])
def test_a_malformed_scheduler_address_is_refused_at_once(address, tmp_path):
    proc = run_warm("batch", COURSE, "--scheduler", address, "--out", tmp_path / "out")
    assert "not a Dask scheduler address" in one_line(proc)
    assert not (tmp_path / "out").exists()


def test_a_scheduler_where_nothing_answers_is_refused_in_one_line(tmp_path):
    """The error page's row "no scheduler answers", with the wait it states."""
    from attention_explainer.app.cluster import SCHEDULER_WAIT_S
    from tests.conftest import documentation_page

    readme = documentation_page("errors.md")
    assert f"no scheduler answers | nothing answered at the `--scheduler` address within " \
           f"{SCHEDULER_WAIT_S} s" in readme

    # the timeout is a guard against a hang, not a measure
    proc = run_warm("batch", COURSE, "--scheduler", "tcp://127.0.0.1:1", "--resolution",
                       "160x90", "--out", tmp_path / "out", timeout=SCHEDULER_WAIT_S + 120)
    err = one_line(proc)
    assert "no Dask scheduler answered at tcp://127.0.0.1:1" in err
    assert f"within {SCHEDULER_WAIT_S} s" in err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_the_dashboard_is_the_local_clusters(tmp_path):
    proc = run_warm("batch", COURSE, "--scheduler", "tcp://127.0.0.1:8786", "--dashboard",
                       "--out", tmp_path / "out")
    assert "--dashboard is the local cluster's" in one_line(proc)


WAIT_CUT_OFF = textwrap.dedent('''
    import signal, sys, time

    from attention_explainer.app.cluster import course_client


    def slow(seconds):
        import time
        time.sleep(seconds)
        return seconds


    def interrupt(signum, frame):
        raise KeyboardInterrupt


    if __name__ == "__main__":
        try:
            with course_client(1) as client:
                future = client.submit(slow, 30, pure=False)
                while future.status == "pending" and not client.scheduler_info()["workers"]:
                    time.sleep(0.1)
                signal.signal(signal.SIGALRM, interrupt)
                signal.setitimer(signal.ITIMER_REAL, 1.0)     # while gather waits on Dask
                client.gather(future)
        except KeyboardInterrupt:
            print("interrupted", file=sys.stderr)
        time.sleep(0.5)          # the loop's abandoned tasks are reported as they are freed
''')


def test_an_interrupt_while_waiting_on_dask_prints_no_traceback_of_its_loop(tmp_path):
    """Ctrl-C while the main thread waits on the cluster cancels the wait on Dask's event
    loop; the task it cut off was printed by asyncio's logger as a traceback ("Task exception
    was never retrieved ... AllExit", or a CancelledError) before the command's one line."""
    script = tmp_path / "wait_cut_off.py"
    script.write_text(WAIT_CUT_OFF, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert proc.stderr.strip().splitlines()[-1:] == ["interrupted"], proc.stderr
    assert "Traceback" not in proc.stderr and "never retrieved" not in proc.stderr, proc.stderr
