"""No file in the repository keeps a merge's conflict markers (a template with them
renders both sides: two drop buttons per player went unnoticed once)."""

from __future__ import annotations

import re
import subprocess

from tests.conftest import PROJECT_ROOT

MARKER = re.compile(r"^(<{7} |>{7} |={7}$)", re.M)


def test_no_tracked_file_holds_conflict_markers() -> None:
    files = subprocess.run(
        ["git", "ls-files"], cwd=PROJECT_ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    marked = [
        name
        for name in files
        if name.endswith((".py", ".html", ".js", ".css", ".md", ".toml", ".yml", ".txt"))
        and MARKER.search((PROJECT_ROOT / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert marked == []
