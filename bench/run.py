"""`make bench`: every benchmark in turn; each prints its own figures.

The calibration figure (bench/calibration.py) is measured once, printed first and passed
to every benchmark in BENCH_CALIBRATION_MS, so each prints the same figure beside its own
(a benchmark run alone measures it itself).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from calibration import ENV, calibration_ms, print_calibration  # noqa: E402

BENCHES = [
    "bench_engine.py",
    "bench_result_entry.py",
    "bench_pairing.py",
    "bench_outlook.py",  # "what do I need?" for 2,048 players before the last round
    "bench_organizer.py",
    "bench_pair_click.py",  # "Pair round 10" over HTTP at 2,048 and 8,192 players
    "bench_pages.py",
    "bench_reports.py",
    "bench_judge_calls.py",  # a judge call reaching judges' screens among 2,000 phones
    "bench_floor_writes.py",  # a judge's "+5 min" and deck check over HTTP (issue 27)
    "bench_decklists.py",  # checking a 75-card list against 30,000 cards (issue 28)
    "bench_decklists_submit.py",  # 1,000 phones submit their lists over HTTP, ~2.5 min
    "bench_push.py",  # 2,000 subscribed phones told of a pairing through a fake push service
    "bench_phones.py",  # 2,000 phones against gunicorn + PostgreSQL + Redis, ~2.5 min
]

if __name__ == "__main__":
    os.environ.pop(ENV, None)  # measure here, on this machine, now
    print_calibration()
    env = {**os.environ, ENV: repr(calibration_ms())}
    failed = 0
    for name in BENCHES:
        path = HERE / name
        if not path.exists():
            continue
        print(f"== {name}", flush=True)
        failed |= subprocess.call([sys.executable, str(path)], cwd=HERE.parent, env=env)
    sys.exit(failed)
