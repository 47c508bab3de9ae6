import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root():
    return ROOT


@pytest.fixture(scope="session")
def launcher():
    """The launcher of the same build (CTest passes it), to compare with the CLI."""
    path = os.environ.get("LOCUS_TEST_LAUNCHER")
    if not path:
        import locus
        path = locus.launcher()
    return path


@pytest.fixture
def run_cli(launcher, tmp_path):
    def run(*arguments, check=True):
        completed = subprocess.run([launcher, *map(str, arguments)], capture_output=True,
                                   text=True, cwd=ROOT)
        if check and completed.returncode != 0:
            raise AssertionError(f"locus {' '.join(map(str, arguments))} failed "
                                 f"({completed.returncode}): {completed.stderr}")
        return completed
    return run
