"""Long work never starts silently: a render says its estimate first when it is long, and
``--dry-run`` (render and pack) prints the files, each beat (cached or to draw) and the
estimate, and writes nothing."""
from __future__ import annotations

import json

import pytest

from attention_explainer.facts import BEATS, FILM_BEATS
from attention_explainer.scenes.pipeline import estimate as estimates
from attention_explainer.scenes.pipeline.plan import SegmentJob

TINY = ["--resolution", "64x36", "--fps", "1"]


def _job(beat, width=1920, height=1080, fps=30):
    return SegmentJob(beat=beat, hands_off=True, follows=False, width=width, height=height,
                      fps=fps, theme="dark", quality="final", trace_fingerprint="x")


def test_every_beat_has_a_length_and_the_cost_grows_with_size_and_rate():
    assert all(b.seconds > 0 for b in BEATS)
    small = estimates.beat_cost("pull", 320, 180, 10)
    assert estimates.beat_cost("pull", 3840, 2160, 10) > small
    assert estimates.beat_cost("pull", 320, 180, 20) == pytest.approx(2 * small)


def test_the_estimate_spreads_the_beats_over_the_workers_and_skips_the_cached():
    jobs = [_job(b) for b in FILM_BEATS]
    costs = {b: estimates.beat_cost(b, 1920, 1080, 30) for b in FILM_BEATS}
    one = estimates.estimate(jobs, 1)
    assert one.seconds == pytest.approx(sum(costs.values()))
    many = estimates.estimate(jobs, len(jobs))
    assert many.seconds == pytest.approx(max(costs.values()))     # the longest beat bounds it
    two = estimates.estimate(jobs, 2)
    assert sum(costs.values()) / 2 <= two.seconds < sum(costs.values())
    held = estimates.estimate(jobs, 2, cached=lambda job: job.beat != "title")
    assert held.to_draw == ("title",) and len(held.cached) == len(jobs) - 1
    assert held.seconds == pytest.approx(costs["title"])
    assert "to draw 1 beat (" in held.line() and "from the beat cache" in held.line()
    assert estimates.estimate(jobs, 2, cached=lambda job: True).seconds == 0


def test_a_4k_film_at_120_fps_is_long_work():
    film = estimates.estimate([_job(b, 3840, 2160, 120) for b in FILM_BEATS], 2)
    assert film.seconds > estimates.LONG_WORK_SECONDS
    assert estimates.spoken_seconds(40) == "40 s" and estimates.spoken_seconds(600) == "10 min"
    assert estimates.spoken_seconds(3900) == "1 h 5 min"


def test_a_long_render_says_its_estimate_before_it_draws(tmp_path, monkeypatch,
                                                        default_trace):
    from attention_explainer.app import film
    from attention_explainer.scenes.pipeline import render

    heard = []
    monkeypatch.setattr(film, "LONG_WORK_SECONDS", 0.0)

    class Watching(render.RenderProgress):
        def start(self, beats, workers):
            heard.append("drawing starts")

    film.render_video(default_trace, beats="title", width=64, height=36, fps=1,
                        output=tmp_path / "film.mp4", report=heard.append, jobs=1,
                        progress=Watching())
    assert heard[0].startswith("about ") and "to draw 1 beat on 1 worker" in heard[0], heard
    assert heard[1] == "drawing starts"


@pytest.mark.parametrize("command", ["render", "pack"])
def test_a_dry_run_prints_the_plan_and_writes_nothing(command, tmp_path, run_cli,
                                                      monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    out = tmp_path / "out"
    target = ["-o", out / "film.mp4"] if command == "render" else ["--out", out / "pack"]
    code, stdout, err = run_cli(command, "The dog chased a red ball", "--beats",
                                "title,embed", *TINY, *target, "--dry-run", "--json")
    assert code == 0, err
    plan = json.loads(stdout)
    assert plan["dry_run"] and plan["estimate_seconds"] > 0
    assert plan["beats"] == [{"beat": "title", "cached": False},
                             {"beat": "embed", "cached": False}]
    assert any(f.endswith(".mp4") for f in plan["files"])
    assert not out.exists() and not (tmp_path / "cache").exists()     # nothing written
    if command == "pack":
        return
    code, _, err = run_cli(command, "The dog chased a red ball", "--beats", "title", *TINY,
                           *target)
    assert code == 0, err
    for beats, said, last in (
            ("title", "beats: title (cached)", "nothing to draw: every beat is in the beat"),
            # a title handing its stage on is another beat than the one that ended the film
            ("title,embed", "beats: title (to draw), embed (to draw)", "to draw 2 beats on")):
        code, stdout, err = run_cli(command, "The dog chased a red ball", "--beats", beats,
                                    *TINY, "-o", out / "again.mp4", "--dry-run")
        assert code == 0, err
        lines = stdout.splitlines()
        assert lines[0] == "would write:" and f"  {out / 'again.mp4'}" in lines
        assert said in lines and last in lines[-1], lines
    assert not (out / "again.mp4").exists()


def test_a_long_course_says_its_estimate_before_it_starts():
    from attention_explainer.app.course import OutputPlan, long_work_line

    def plan(width, height, fps, status="pending"):
        return OutputPlan(explainer=1, line=1, name="cat", sentence="The cat ate the fish",
                          trace_options={}, beats=list(FILM_BEATS), width=width,
                          height=height, label=f"{width}x{height}", fps=fps, pack=False,
                          theme="dark", quality="final", status=status)

    assert long_work_line([plan(320, 180, 5)], 2) is None
    big = [plan(3840, 2160, 60), plan(320, 180, 5)]
    line = long_work_line(big, 2)
    assert line.startswith("estimated render time from a cold cache:") and "2 workers" in line
    # what is already up to date is not work
    assert long_work_line([plan(3840, 2160, 60, status="done")], 2) is None


def test_long_work_in_a_log_says_each_beat_as_it_is_done(tmp_path, monkeypatch, default_trace,
                                                         capsys):
    """With no terminal (a CI log, a notebook cell) a long render says a line per beat
    done, with the time so far and about how long is left; short work stays quiet."""
    from attention_explainer.app import film as films
    from attention_explainer.commands.progress import RenderBar

    def film(name):
        films.render_video(default_trace, beats="title,embed", width=64, height=36, fps=1,
                            output=tmp_path / name, report=lambda line: None, jobs=1,
                            progress=RenderBar(True))
        return capsys.readouterr().err.splitlines()

    assert film("short.mp4") == []
    monkeypatch.setattr(films, "LONG_WORK_SECONDS", 0.0)
    lines = film("long.mp4")
    assert [line.split(" (")[0] for line in lines] == ["beat 1 of 2 ready: title",
                                                       "beat 2 of 2 ready: embed"], lines
    assert "so far, about" in lines[0] and "left" not in lines[1], lines


def test_a_long_course_in_a_log_says_each_output_set_as_it_is_done():
    from attention_explainer.commands.progress import CourseBar

    told = []
    plans = [type("Plan", (), {"title": f"{n}. cat 64x36", "beats": ["title"]})()
             for n in (1, 2)]
    with CourseBar(plans, told.append) as bar:          # no terminal here
        bar.finished(plans[0])
        bar.failed(plans[1])
    assert [line.split(",")[0] for line in told] == [
        "output set 1 of 2 ready: 1. cat 64x36", "output set 2 of 2 failed: 2. cat 64x36"]
    with CourseBar(plans) as bar:                       # short work: quiet
        bar.finished(plans[0])
    assert len(told) == 2
