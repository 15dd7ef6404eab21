"""`make bench`: every benchmark in turn; each prints its own figures."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BENCHES = ["bench_engine.py", "bench_result_entry.py", "bench_pairing.py", "bench_pages.py"]

if __name__ == "__main__":
    failed = 0
    for name in BENCHES:
        path = HERE / name
        if not path.exists():
            continue
        print(f"== {name}", flush=True)
        failed |= subprocess.call([sys.executable, str(path)], cwd=HERE.parent)
    sys.exit(failed)
