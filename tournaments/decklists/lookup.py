"""An in-memory CardLookup over the card data: exact lookup by key (and by the front
face of split and double-faced cards, as Arena lists name them), and a fast "did you
mean" over tens of thousands of names.

difflib over 30,000 names takes seconds per unknown name; here a character-trigram
index picks the few names sharing the most trigrams with the unknown one, and difflib
ranks only those.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Iterable

from tournaments.decklists.parse import card_key, front_face
from tournaments.decklists.types import CardInfo

SHORTLIST = 12  # names difflib ranks after the trigram prefilter
MIN_GRAMS = 3  # the rarest trigrams counted however common they are
CUTOFF = 0.72  # difflib ratio below which no suggestion is made


def _trigrams(key: str) -> set[str]:
    padded = f"  {key} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


class CardIndex:
    """Card data by key. Built once (from the card table, or from a test's cards) and then
    only read, so one instance can serve every request of a process."""

    def __init__(self, cards: Iterable[CardInfo]) -> None:
        self._cards: dict[str, CardInfo] = {}
        fronts: dict[str, CardInfo] = {}
        for info in cards:
            key = card_key(info.name)
            self._cards.setdefault(key, info)
            front = front_face(key)
            if front is not None:
                fronts.setdefault(front, info)
        # A card whose whole name is another card's front face stays itself.
        self._fronts = {k: v for k, v in fronts.items() if k not in self._cards}
        # The names suggestions can be: each card's full name and its front face's.
        self._names: list[tuple[str, str]] = []  # (key, name as printed)
        for key, info in self._cards.items():
            self._names.append((key, info.name))
        for key, info in self._fronts.items():
            self._names.append((key, info.name.split("//")[0].strip()))
        self._postings: dict[str, list[int]] = {}
        for position, (key, _) in enumerate(self._names):
            for gram in _trigrams(key):
                self._postings.setdefault(gram, []).append(position)
        self._lengths = [len(key) for key, _ in self._names]
        # A trigram in more than 1 name of 20 is too common to be worth counting.
        self._common = max(200, len(self._names) // 20)

    def __len__(self) -> int:
        return len(self._cards)

    def get(self, key: str) -> CardInfo | None:
        return self._cards.get(key) or self._fronts.get(key)

    def suggest(self, key: str) -> str | None:
        if not key:
            return None
        postings = self._postings
        grams = sorted((g for g in _trigrams(key) if g in postings), key=lambda g: len(postings[g]))
        if not grams:
            return None
        # Trigrams most names share ("of ", "the", "er ") tell little and cost the most to
        # count: only the rarer ones are counted (at least the MIN_GRAMS rarest).
        counted = [
            g for i, g in enumerate(grams) if i < MIN_GRAMS or len(postings[g]) <= self._common
        ]
        shared: Counter[int] = Counter()
        for gram in counted:
            shared.update(postings[gram])
        # Among the names sharing at least half as many trigrams as the best, the highest
        # Dice-like score, so that long names sharing many by sheer length do not crowd
        # out the right one; difflib then ranks the shortlist.
        floor = max(1, max(shared.values()) // 2)
        size = len(counted)
        lengths = self._lengths
        close = [(count / (size + lengths[p]), p) for p, count in shared.items() if count >= floor]
        best = heapq.nlargest(SHORTLIST, close)
        matcher = difflib.SequenceMatcher(autojunk=False)
        matcher.set_seq2(key)
        chosen: tuple[float, str] | None = None
        for _, position in best:
            candidate, name = self._names[position]
            matcher.set_seq1(candidate)
            if matcher.real_quick_ratio() < CUTOFF or matcher.quick_ratio() < CUTOFF:
                continue
            ratio = matcher.ratio()
            if ratio >= CUTOFF and (chosen is None or ratio > chosen[0]):
                chosen = (ratio, name)
        return chosen[1] if chosen else None
