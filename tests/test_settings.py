"""Settings a lecture repo pins: attention-explainer.toml (or pyproject's table) and
ATTENTION_EXPLAINER_<OPTION> variables, with the command line first, then the environment,
then the file, then the built-in default; a bad value names its file and key."""
import os

import av

from conftest import run_process


def _config(cwd, *args, env=None):
    proc = run_process("config", *args, cwd=cwd, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = {}
    for line in proc.stdout.splitlines()[1:]:
        name, rest = line.split("=", 1)
        value, source = rest.split("#", 1)
        rows[name.strip()] = (value.strip(), source.strip())
    return rows


def test_the_precedence_is_command_line_then_environment_then_file(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_EXPLAINER_")}
    assert _config(tmp_path, env=env)["resolution"] == ("1080p", "built-in")
    (tmp_path / "attention-explainer.toml").write_text(
        'resolution = "320x180"\nfps = 4\n[frames]\nfps = 3\n', encoding="utf-8")
    rows = _config(tmp_path, env=env)
    assert rows["resolution"][0] == "320x180" and "attention-explainer.toml" in rows["resolution"][1]
    assert _config(tmp_path, "frames", env=env)["fps"][0] == "3"      # the command's table
    env_set = dict(env, ATTENTION_EXPLAINER_RESOLUTION="160x90")
    assert _config(tmp_path, env=env_set)["resolution"] == (
        "160x90", "environment ATTENTION_EXPLAINER_RESOLUTION")

    # and a real render follows it: the file's fps, the environment's size, then the
    # command line's size
    def render(*args, env):
        proc = run_process("render", "--beats", "title", "--quiet", "--json", *args,
                           cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr
        with av.open(str(tmp_path / "renders" / proc.stdout.split('"')[3].split("/")[-1])) \
                as container:
            stream = container.streams.video[0]
            return stream.width, stream.height, int(stream.average_rate)

    assert render(env=env_set) == (160, 90, 4)
    assert render("--resolution", "64x36", env=env_set) == (64, 36, 4)


def test_pyproject_can_hold_the_settings(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "my-lecture"\n[tool.attention-explainer]\ntheme = "illustrated"\n',
        encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_EXPLAINER_")}
    value, source = _config(tmp_path, env=env)["theme"]
    assert value == "illustrated" and "pyproject.toml [tool.attention-explainer]" in source


def test_a_bad_value_names_the_file_and_the_key(tmp_path):
    (tmp_path / "attention-explainer.toml").write_text('fps = "fast"\n', encoding="utf-8")
    proc = run_process("render", "--beats", "title", cwd=tmp_path)
    assert proc.returncode == 2
    assert "attention-explainer.toml" in proc.stderr and "fps" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "renders").exists()
    (tmp_path / "attention-explainer.toml").write_text('force = true\n', encoding="utf-8")
    proc = run_process("render", "--beats", "title", cwd=tmp_path)
    assert proc.returncode == 2 and "'force' is not an option" in proc.stderr
