"""The engines are pure: importing them must not pull in Django."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_ROOT


@pytest.mark.parametrize(
    "package",
    [
        "scoring.engine",
        "tournaments.pairing",
        "tournaments.rules",
        "tournaments.decklists",
        "tournaments.parsing",
        "tournaments.messages",
    ],
)
def test_engine_imports_nothing_from_django(package: str) -> None:
    code = (
        "import sys, importlib, pkgutil\n"
        f"pkg = importlib.import_module({package!r})\n"
        "for m in pkgutil.walk_packages(getattr(pkg, '__path__', []), pkg.__name__ + '.'):\n"
        "    importlib.import_module(m.name)\n"
        "bad = sorted(n for n in sys.modules if n == 'django' or n.startswith('django.'))\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
