"""Environment variables through the real command line: the beat cache's cap turns the
cache off at 0, and the plain-manim hook's ATTENTION_EXPLAINER_TRACE never reaches the CLI.
(Bad values of the cap are rows of test_bad_input.)"""
import json
import os

from tests.conftest import DEFAULT, run_process
from tests.make_golden import TRACE


def test_a_cache_cap_of_zero_renders_without_the_cache(tmp_path):
    env = dict(os.environ, ATTENTION_EXPLAINER_CACHE_MB="0", XDG_CACHE_HOME=str(tmp_path / "xdg"))
    done = run_process("render", "--trace", TRACE, "--beats", "title", "--resolution", "160x90",
                       "--fps", "5", "-o", tmp_path / "film.mp4", env=env)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "film.mp4").is_file()
    beats = tmp_path / "xdg" / "attention-explainer" / "beats"
    assert not beats.exists() or not any(beats.iterdir())
    info = run_process("cache", "info", env=env)
    assert info.returncode == 0 and "off" in info.stdout


def test_the_plain_manim_trace_variable_never_reaches_the_command_line(tmp_path):
    other = tmp_path / "other.npz"
    saved = run_process("inspect", "Le chat dort", "--npz", other)
    assert saved.returncode == 0, saved.stderr
    env = dict(os.environ, ATTENTION_EXPLAINER_TRACE=str(other),
               XDG_CACHE_HOME=str(tmp_path / "xdg"))
    for args in (["inspect", DEFAULT, "--json"], ["inspect", "--json"]):
        done = run_process(*args, env=env)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["meta"]["sentence"] == DEFAULT
    still = run_process("frames", DEFAULT, "--beat", "title", "--at", "key", "--resolution",
                        "160x90", "--fps", "5", "--out", tmp_path / "stills", env=env)
    assert still.returncode == 0, still.stderr
    assert (tmp_path / "stills" / "title-key.png").is_file()
