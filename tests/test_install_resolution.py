"""The README's install command cannot select PyTorch's CUDA build by accident (issue 38):
pip's own resolver, run with ``--dry-run --report`` on this project, against two package
indexes made here as PyPI and PyTorch's CPU index present torch (PyPI's torch wheel needs
the nvidia-* CUDA libraries; the CPU index's ``+cpu`` build needs none). Offline: the
indexes are folders of stub wheels, each dependency at the version installed here."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
import zipfile
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH = "2.14.1"           # a release both indexes hold (PyPI's CUDA build, the CPU one)
CUDA_LIBRARY = "nvidia-cublas-cu12"


def stub_wheel(folder, name: str, version: str, requires=()) -> None:
    """A wheel holding only its metadata: what pip's resolver reads."""
    dist = f"{re.sub(r'[-.]+', '_', name)}-{version}"
    info = f"{dist}.dist-info"
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}",
             *[f"Requires-Dist: {r}" for r in requires]]
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as wheel:
        wheel.writestr(f"{info}/METADATA", "\n".join(lines) + "\n")
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\n"
                                        "Root-Is-Purelib: true\nTag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")


def simple_index(root, wheels) -> str:
    """A PEP 503 index of the wheels in ``wheels`` under ``root``; its file:// URL."""
    projects: dict[str, list] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        projects.setdefault(canonicalize_name(wheel.name.split("-")[0]), []).append(wheel)
    for name, files in projects.items():
        page = root / name
        page.mkdir(parents=True)
        page.joinpath("index.html").write_text("".join(
            f'<a href="{f.as_uri()}">{f.name}</a>\n' for f in files))
    return root.as_uri()


def project_requirements() -> list[Requirement]:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [Requirement(r) for r in pyproject["project"]["dependencies"]]


def indexes(tmp_path) -> tuple[str, str]:
    """(PyPI, PyTorch's CPU index) as pip sees them, for this project's dependencies."""
    pypi, cpu = tmp_path / "pypi-files", tmp_path / "cpu-files"
    pypi.mkdir()
    cpu.mkdir()
    for requirement in project_requirements():
        if requirement.name == "torch":
            continue
        stub_wheel(pypi, requirement.name, metadata.version(requirement.name))
    assert TORCH in next(r for r in project_requirements() if r.name == "torch").specifier
    stub_wheel(pypi, "torch", TORCH, [f'{CUDA_LIBRARY}; platform_system == "Linux"'])
    stub_wheel(pypi, CUDA_LIBRARY, "12.8.4.1")
    stub_wheel(cpu, "torch", f"{TORCH}+cpu")
    return (simple_index(tmp_path / "pypi", pypi), simple_index(tmp_path / "cpu", cpu))


def readme_install_options() -> list[str]:
    """The options of the README's first `pip install .` line."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line.split(" #", 1)[0] for line in readme.splitlines()
                if line.startswith("pip install ."))
    return shlex.split(line)[3:]


def selected(options: list[str], pypi: str, tmp_path) -> dict[str, str]:
    """What pip would install for this project into an empty environment: {name:
    version}, nothing downloaded."""
    report = tmp_path / f"report-{len(list(tmp_path.glob('report-*')))}.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
         "--report", str(report),
         "--no-build-isolation", "--index-url", pypi, *options, str(ROOT)],
        env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return {item["metadata"]["name"].lower(): item["metadata"]["version"]
            for item in json.loads(report.read_text())["install"]}


def test_the_readme_install_takes_the_cpu_build_of_torch_and_no_cuda_library(tmp_path):
    pypi, cpu = indexes(tmp_path)
    options = readme_install_options()
    assert CPU_INDEX in options, options
    chosen = selected([cpu if o == CPU_INDEX else o for o in options], pypi, tmp_path)
    assert chosen["torch"] == f"{TORCH}+cpu", chosen
    assert not [name for name in chosen if name.startswith("nvidia-")], chosen
    # the same resolution without the CPU index takes PyPI's torch and its CUDA libraries:
    # what the README's first command prevents
    plain = selected([], pypi, tmp_path)
    assert plain["torch"] == TORCH and CUDA_LIBRARY in plain, plain
