import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")      # no network, ever
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

DEFAULT = "The cat ate the fish"


@pytest.fixture(scope="session")
def default_trace():
    from attention_core import compute_trace

    return compute_trace(DEFAULT)


@pytest.fixture
def run_cli(capsys):
    """Run the real CLI entry point in-process; returns (exit code, stdout, stderr)."""
    import cli

    def run(*args):
        code = 0
        try:
            cli.main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return code, out, err

    return run
