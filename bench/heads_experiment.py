"""The heads experiment's committed run: `experiment heads` with its defaults (1, 4, 8, 16
heads at d_model 512, the Rotten Tomatoes snippets, 2 epochs, seeds 0 and 1) and a film,
kept as bench/results/heads-experiment-DEVICE.json, its chart and a film still in docs/,
and a section of bench/RESULTS.md.

    python bench/heads_experiment.py                    # run it (about 8 minutes on 2 cores)
    python bench/heads_experiment.py --from DIR         # keep a run made by hand into DIR
    python bench/heads_experiment.py --check            # run again, compare with the kept one

``--check`` reruns the kept command and says, per head count, how far each accuracy moved:
the README's tolerance (the same machine and thread count: none; another CPU: within 1.5
points) is measured here, not asserted in a test.
"""
from __future__ import annotations

import argparse
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
TOLERANCE_POINTS = 1.5


def run(command: list[str], folder: Path) -> dict:
    subprocess.run([sys.executable, "-m", "attention_explainer.cli", *command], cwd=folder,
                   check=True)
    return json.loads((folder / "heads-experiment" / "results.json").read_text())


def film_still(film: Path, target: Path) -> None:
    """The film's last frame (its summary), as a PNG at 1280 x 720 (for the docs)."""
    import av

    with av.open(str(film)) as container:
        last = None
        for frame in container.decode(video=0):
            last = frame
    last.to_image().resize((1280, 720)).save(target, optimize=True)


def section(results: dict, device: str, check: dict | None) -> str:
    setup, data, machine = results["setup"], results["data"], results["machine"]
    lines = [f"## heads experiment ({device})", "",
             f"`{results['command']}` (`bench/heads_experiment.py`), on {machine['cpu']}, "
             f"{machine['threads']} threads, torch {machine['torch']}. {data['name']}: "
             f"{data['training']} training and {data['validation']} validation snippets; "
             f"{setup['layers']} layer, {setup['epochs']} epochs, seeds "
             f"{', '.join(map(str, setup['seeds']))}. The majority class is "
             f"{100 * results['majority_baseline']:.1f} % of the validation snippets.", "",
             "| heads | d_k | accuracy (mean, seeds' range) | seconds per epoch | "
             "peak memory, forward + backward | parameters |",
             "| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in results["rows"]:
        lines.append(f"| {r['heads']} | {r['d_head']} | {100 * r['accuracy_mean']:.1f} % "
                     f"({100 * r['accuracy_min']:.1f}–{100 * r['accuracy_max']:.1f}) | "
                     f"{r['epoch_seconds_mean']:.1f} | {r['peak_bytes'] / 2 ** 20:.0f} MiB | "
                     f"{r['parameters']:,} |")
    lines += ["", "The expectations, against these numbers (the rule: docs/heads-experiment.md):", ""]
    lines += [f"- **{e['verdict']}**: {e['claim']} ({e['source']}): {e['measured']}."
              for e in results["expectations"]]
    if check:
        lines += ["", f"Run again ({check['when']}, the same machine): the largest change "
                      f"of an accuracy was {check['largest']:.2f} points (the stated "
                      f"tolerance: none on the same machine and threads, "
                      f"{TOLERANCE_POINTS} points elsewhere)."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", type=Path, help="a folder written by "
                        "`experiment heads --film` to keep instead of running one")
    parser.add_argument("--check", action="store_true", help="run again and compare")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from results import update_section

    kept = HERE / "results" / f"heads-experiment-{args.device}.json"
    if args.check:
        before = json.loads(kept.read_text())
        with tempfile.TemporaryDirectory() as folder:
            again = run(shlex.split(before["command"])[1:], Path(folder))
        moved = [abs(a["accuracy_mean"] - b["accuracy_mean"]) * 100
                 for a, b in zip(before["rows"], again["rows"])]
        for row, points in zip(before["rows"], moved):
            print(f"{row['heads']:>3} head{'s' * (row['heads'] != 1)}: moved {points:.2f} points")
        import datetime

        check = {"when": datetime.date.today().isoformat(), "largest": max(moved)}
        before["reproduced"] = check
        kept.write_text(json.dumps(before, indent=2, ensure_ascii=False) + "\n")
        update_section(f"heads-experiment-{args.device}", section(before, args.device, check))
        return
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.source
        if folder is None:
            command = ["experiment", "heads", "--out", "heads-experiment", "--device",
                       args.device, "--film", "--resolution", "1080p"]
            run(command, Path(scratch))
            folder = Path(scratch) / "heads-experiment"
        results = json.loads((folder / "results.json").read_text())
        kept.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        shutil.copy(folder / "chart.png", ROOT / "docs" / "heads-experiment.png")
        film_still(folder / "film.mp4", ROOT / "docs" / "heads-film.png")
    update_section(f"heads-experiment-{args.device}", section(results, args.device, None))


if __name__ == "__main__":
    main()
