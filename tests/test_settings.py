"""Settings a lecture repo pins: attention-explainer.toml (or pyproject's table) and
ATTENTION_EXPLAINER_<OPTION> variables, with the command line first, then the environment,
then the file, then the built-in default; a bad value names its file and key."""
import os

import av

from conftest import assert_refused as _refused, run_warm


def _config(cwd, *args, env=None):
    proc = run_warm("config", *args, cwd=cwd, env=env)
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
        proc = run_warm("render", "--beats", "title", "--quiet", "--json", *args,
                           cwd=tmp_path, env=env)
        assert proc.returncode == 0, proc.stderr
        with av.open(str(tmp_path / "renders" / proc.stdout.split('"')[3].split("/")[-1])) \
                as container:
            stream = container.streams.video[0]
            return stream.width, stream.height, int(stream.codec_context.framerate)

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
    proc = run_warm("render", "--beats", "title", cwd=tmp_path)
    assert proc.returncode == 2
    assert "attention-explainer.toml" in proc.stderr and "fps" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "renders").exists()
    (tmp_path / "attention-explainer.toml").write_text('force = true\n', encoding="utf-8")
    proc = run_warm("render", "--beats", "title", cwd=tmp_path)
    assert proc.returncode == 2 and "'force' is not an option" in proc.stderr


def _clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("ATTENTION_EXPLAINER_")}


def test_a_pyproject_table_that_is_not_a_table_names_the_file_and_key(tmp_path):
    for value in ("5", "[1, 2]", '"illustrated"'):
        (tmp_path / "pyproject.toml").write_text(f'[tool]\nattention-explainer = {value}\n')
        proc = run_warm("inspect", "The cat sat", cwd=tmp_path, env=_clean_env())
        _refused(proc, "pyproject.toml", "[tool.attention-explainer]", "not a table")


def test_a_malformed_pyproject_never_breaks_help_nor_a_folder_that_is_not_ours(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project\nname = "broken"\n')
    for args in (["--help"], ["inspect", "--help"], ["render", "--help"]):
        proc = run_warm(*args, cwd=tmp_path, env=_clean_env())
        assert proc.returncode == 0, proc.stderr
    # a broken pyproject that does not mention us cannot hold our settings: not ours to judge
    proc = run_warm("inspect", "The cat sat", cwd=tmp_path, env=_clean_env())
    assert proc.returncode == 0, proc.stderr


def test_a_malformed_pyproject_that_holds_our_table_is_reported_by_a_command(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.attention-explainer]\ntheme = "illustrated\n')
    assert run_warm("inspect", "--help", cwd=tmp_path, env=_clean_env()).returncode == 0
    proc = run_warm("inspect", "The cat sat", cwd=tmp_path, env=_clean_env())
    _refused(proc, "pyproject.toml", "not a readable TOML file")


def test_a_settings_file_that_is_a_folder_or_a_fifo_is_refused_unread(tmp_path):
    folder = tmp_path / "folder"
    (folder / "attention-explainer.toml").mkdir(parents=True)
    proc = run_warm("inspect", "The cat sat", cwd=folder, env=_clean_env())
    _refused(proc, "attention-explainer.toml", "not a regular file")
    fifo_home = tmp_path / "fifo"
    fifo_home.mkdir()
    os.mkfifo(fifo_home / "attention-explainer.toml")
    # reading a FIFO blocks until someone writes: refused unopened, or this times out
    proc = run_warm("inspect", "The cat sat", cwd=fifo_home, env=_clean_env(), timeout=60)
    _refused(proc, "attention-explainer.toml", "not a regular file")


def test_output_paths_from_a_settings_file_stay_in_its_folder(tmp_path):
    project = tmp_path / "lecture"
    project.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "talk.mp4").write_bytes(b"someone else's video")
    for setting in ('[render]\noutput = "../victim/talk.mp4"\n', 'output-dir = "/tmp"\n',
                    '[inspect]\nnpz = "../victim/trace.npz"\n',
                    '[frames]\nout = "../victim"\n'):
        (project / "attention-explainer.toml").write_text(setting)
        proc = run_warm("render", "--beats", "title", "--resolution", "160x90", "--fps",
                           "5", "--force", "--quiet", cwd=project, env=_clean_env())
        _refused(proc, "attention-explainer.toml", "outside")
    assert (victim / "talk.mp4").read_bytes() == b"someone else's video"
    assert sorted(p.name for p in victim.iterdir()) == ["talk.mp4"]


def test_a_relative_output_in_a_settings_file_is_relative_to_its_folder(tmp_path):
    project = tmp_path / "lecture"
    (project / "slides").mkdir(parents=True)
    (project / "attention-explainer.toml").write_text('[inspect]\nnpz = "traces/cat.npz"\n')
    proc = run_warm("inspect", "The cat sat", cwd=project / "slides", env=_clean_env())
    # run from a subfolder, the settings file is not found there: nothing written by it
    assert proc.returncode == 0 and not (project / "traces").exists()
    proc = run_warm("inspect", "The cat sat", cwd=project, env=_clean_env())
    assert proc.returncode == 0, proc.stderr
    assert (project / "traces" / "cat.npz").is_file()
    assert "attention-explainer.toml" in proc.stderr      # says where the path came from
