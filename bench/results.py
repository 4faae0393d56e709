"""Keep bench/RESULTS.md: each benchmark replaces its own section, the others stay."""
from __future__ import annotations

import os
import platform
import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"
HEADER = ("# Benchmark results\n\nEach section is written by the benchmark named in it "
          "(`make bench` runs them all); figures are ratios measured in one run, with the "
          "machine noted.\n")


def update_section(name: str, body: str) -> None:
    text = RESULTS.read_text() if RESULTS.exists() else HEADER
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    block = f"{begin}\n{body.strip()}\n{end}"
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)


def machine() -> str:
    """One line naming the machine the figures were measured on."""
    cpu = next((line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                if "model name" in line), platform.processor())
    return (f"{os.cpu_count()} cores ({cpu}), {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")
