"""A course on Dask: a manifest rendered on a LocalCluster of two workers, resumed from
what is done, honest about a failing explainer, and submitted to a separate scheduler."""
import socket
import subprocess
import sys
import time
from pathlib import Path

import av
import pytest

from conftest import CLI, ROOT, run_warm
from tests.videos import frame_rate, shown_count

SMALL = 'resolution = "160x90"\nfps = 5\nbeats = "title,embed,summary"\n'


def _course(tmp_path: Path, explainers: list[str], defaults: str = SMALL) -> Path:
    text = "[defaults]\n" + defaults + "".join(
        f"\n[[explainer]]\n{body}\n" for body in explainers)
    path = tmp_path / "course.toml"
    path.write_text(text, encoding="utf-8")
    return path


THREE = ['sentence = "The cat ate the fish"\noutput = "cat"',
         'sentence = "The animal didn\'t cross the street because it was too tired"\n'
         'focus = "it"\noutput = "tired"\npack = true',
         'sentence = "我爱北京天安门"\nfocus = "北京"\noutput = "beijing"']


def _valid_video(path: Path, seconds_at_least: float = 5) -> None:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height) == (160, 90)
    assert shown_count(path) / frame_rate(path) >= seconds_at_least


def test_a_course_renders_on_two_workers_and_a_rerun_renders_nothing(tmp_path):
    import os

    # a beat cache of its own: a render of the same sentence at this size by another test
    # of this worker would have drawn its first beats (render and course share entries)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    course = _course(tmp_path, THREE)
    first = run_warm("batch", course, "--out", tmp_path / "out", "--jobs", 2, env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    out = tmp_path / "out"
    for name in ("cat-160x90.mp4", "beijing-160x90.mp4"):
        _valid_video(out / name)
        assert (out / name).with_suffix(".srt").stat().st_size > 0
    pack = out / "tired-160x90"
    _valid_video(pack / "explainer.mp4")
    assert (pack / "slides.pptx").is_file() and (pack / "index.html").is_file()
    assert len(list((pack / "clips").glob("*.mp4"))) == 3
    assert first.stdout.count(" ok ") == 3, first.stdout
    assert "9 beats: 0 from the cache, 9 drawn" in first.stderr

    before = {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()}
    second = run_warm("batch", course, "--out", tmp_path / "out", "--jobs", 2, env=env)
    assert second.returncode == 0, second.stderr[-2000:]
    assert second.stdout.count("up to date") == 3
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*") if p.is_file()} == before
    assert "0 beats: 0 from the cache, 0 drawn" in second.stderr   # no task was run

    # the same course into another folder: every beat comes from the cache
    third = run_warm("batch", course, "--out", tmp_path / "again", "--jobs", 2, env=env)
    assert third.returncode == 0, third.stderr[-2000:]
    assert "9 beats: 9 from the cache, 0 drawn" in third.stderr


def _model_that_fails_when_run(folder):
    """A copy of MiniLM whose word embeddings are NaN: it passes every check the course makes
    before it starts (config, tokenizer, shapes), and fails in the worker when it is loaded."""
    import shutil

    import numpy as np
    from safetensors.numpy import load_file, save_file

    from attention_explainer.attention_core import bert

    shutil.copytree(bert.minilm_dir(), folder)
    weights = load_file(folder / "model.safetensors")
    name = next(n for n in weights if "embeddings.word_embeddings" in n)
    weights[name] = np.full_like(weights[name], np.nan)
    save_file(weights, folder / "model.safetensors")
    return folder


def test_one_failing_explainer_does_not_stop_the_others(tmp_path):
    broken = _model_that_fails_when_run(tmp_path / "broken-model")
    course = _course(tmp_path, [
        'sentence = "The cat ate the fish"\noutput = "good"',
        f'sentence = "The cat ate the fish"\nmodel = "{broken}"\noutput = "bad"'],
        defaults='resolution = "160x90"\nfps = 5\nbeats = "title"\n')
    proc = run_warm("batch", course, "--out", tmp_path / "out", "--jobs", 2)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert (tmp_path / "out" / "good-160x90.mp4").is_file()
    assert not list((tmp_path / "out").glob("bad*"))
    bad_row = next(line for line in proc.stdout.splitlines() if " bad " in line)
    assert "failed" in bad_row and "NaN or infinite" in bad_row
    assert "Traceback" not in proc.stderr


def test_every_bad_entry_is_reported_at_once_and_nothing_is_written(tmp_path):
    course = _course(tmp_path, [
        'sentence = "The cat ate the fish"\nfps = 500',
        'sentence = "The cat ate the fish"\ncolour = "red"',
        'sentence = "fine"\nresolution = ["320x180", "99x"]'])
    proc = run_warm("batch", course, "--out", tmp_path / "out")
    assert proc.returncode == 2
    message = proc.stderr.strip()
    assert len(message.splitlines()) == 1
    for fragment in ("explainer 1 (line 6)", "explainer 2 (line 10)", "colour",
                     "explainer 3 (line 14)", "99x"):
        assert fragment in message, fragment
    assert not (tmp_path / "out").exists()


def test_the_settings_top_level_theme_reaches_a_course(tmp_path):
    """A top-level theme in attention-explainer.toml applies to batch as to render: a
    course without a theme of its own finds in the beat cache the beat that the same
    course with that theme in its [defaults] drew (a course that ignored the setting would
    draw the beat again, in the default theme)."""
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_EXPLAINER_")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")           # this test's beats only
    small = 'resolution = "96x54"\nfps = 4\nbeats = "title"\n'
    explainer = ['sentence = "The cat ate the fish"\noutput = "cat"']
    (tmp_path / "themed").mkdir()
    themed = _course(tmp_path / "themed", explainer, defaults=small + 'theme = "colorblind"\n')
    first = run_warm("batch", themed, "--out", tmp_path / "first", "--jobs", 1,
                        cwd=tmp_path / "themed", env=env)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "1 beats: 0 from the cache, 1 drawn" in first.stderr, first.stderr[-2000:]

    (tmp_path / "attention-explainer.toml").write_text('theme = "colorblind"\n',
                                                      encoding="utf-8")
    course = _course(tmp_path, explainer, defaults=small)
    second = run_warm("batch", course, "--out", tmp_path / "second", "--jobs", 1,
                         cwd=tmp_path, env=env)
    assert second.returncode == 0, second.stderr[-2000:]
    assert "1 beats: 1 from the cache, 0 drawn" in second.stderr, second.stderr[-2000:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_course_runs_on_a_separate_scheduler_and_workers(tmp_path):
    dask = Path(sys.executable).parent / "dask"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                                   str(port), "--no-dashboard"], cwd=tmp_path,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(2):
            processes.append(subprocess.Popen(
                [str(dask), "worker", address, "--nworkers", "1", "--nthreads", "1",
                 "--no-dashboard"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        from distributed import Client
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with Client(address, timeout="5s") as client:
                    if len(client.scheduler_info()["workers"]) == 2:
                        break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("the Dask scheduler and its two workers did not come up in 60 s")
        course = _course(tmp_path, THREE[:2],
                         defaults='resolution = "160x90"\nfps = 5\nbeats = "title,embed"\n')
        proc = subprocess.run(CLI + ["batch", str(course), "--out", str(tmp_path / "out"),
                                     "--scheduler", address, "--cache-dir",
                                     str(tmp_path / "shared-cache")],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert (tmp_path / "out" / "cat-160x90.mp4").is_file()
        assert (tmp_path / "out" / "tired-160x90" / "slides.pptx").is_file()
        assert list((tmp_path / "shared-cache" / "beats").iterdir())
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            process.wait(timeout=30)


def test_ctrl_c_during_a_course_leaves_only_whole_sets_and_no_process(tmp_path):
    """Ctrl-C at a terminal reaches the whole process group (the command, its Dask nanny and
    workers): the course stops with exit 130 and one line, what was unfinished rolls back,
    and no process of it is left running."""
    import os
    import signal

    course = _course(tmp_path, THREE,
                     defaults='resolution = "160x90"\nfps = 5\nbeats = "title,embed,project"\n')
    out, cache = tmp_path / "out", tmp_path / "cache"
    proc = subprocess.Popen(CLI + ["batch", str(course), "--out", str(out), "--jobs", "2",
                                   "--cache-dir", str(cache)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    deadline = time.monotonic() + 240
    while not (cache / "beats").is_dir() or not any((cache / "beats").iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "no beat was ever drawn"
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[-3000:]
    deadline = time.monotonic() + 30
    while True:                                   # the process group empties
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "processes of the course were left running"
        time.sleep(0.2)
    files = [p for p in out.rglob("*")] if out.exists() else []
    assert not [p for p in files if p.name.startswith(".attention-explainer-")
                or ".part" in p.name], files
    for video in (p for p in files if p.suffix == ".mp4" and p.parent == out):
        for suffix in (".srt", ".png", ".npz"):         # a film is there with its sidecars
            assert video.with_suffix(suffix).is_file(), (video, suffix)


def test_a_course_renders_a_translation_and_a_writing_as_its_commands_do(tmp_path):
    """`film = "translation"` and `film = "writing"` entries: the translate and generate
    films on the course's tasks (a pack of one), each set whole, a rerun up to date."""
    import os

    from tests import tiny_models

    gpt2 = tiny_models.build("gpt2", tmp_path / "gpt2")
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    course = _course(tmp_path, [
        'sentence = "The cat ate the fish"\nfilm = "translation"\nfocus = "Katze"\n'
        'target = "Die Katze hat den Fisch gegessen"\nd-model = 64\nnum-heads = 4\n'
        'beats = "question,answer"\noutput = "katze"',
        f'sentence = "The animal did not cross because it"\nfilm = "writing"\n'
        f'model = "{gpt2}"\ntokens = 2\noutput = "writes"\npack = true'],
        defaults='resolution = "160x90"\nfps = 5\n')
    first = run_warm("batch", course, "--out", tmp_path / "out", "--jobs", 2, env=env)
    assert first.returncode == 0, first.stderr[-3000:]
    out = tmp_path / "out"
    _valid_video(out / "katze-160x90.mp4")
    assert sorted(p.name for p in out.glob("katze-160x90.*")) == [
        "katze-160x90.course.json", "katze-160x90.json", "katze-160x90.mp4",
        "katze-160x90.png", "katze-160x90.srt"]
    assert "Katze" in (out / "katze-160x90.srt").read_text()
    clips = sorted(p.name for p in (out / "writes-160x90" / "clips").glob("*.mp4"))
    assert clips == ["01-prompt.mp4", "02-step1.mp4", "03-step2.mp4", "04-sink.mp4"]
    second = run_warm("batch", course, "--out", tmp_path / "out", "--jobs", 2, env=env)
    assert second.returncode == 0 and second.stdout.count("up to date") == 2, second.stdout
