"""Benchmark: checking a decklist against the card data (issue 28).

Run: .venv/bin/python bench/bench_decklists.py [--cards 30000] [--runs 200]

Builds `--cards` synthetic cards (names made of common card-name words, so the "did you
mean" index meets realistic shared trigrams: "the", "of ", "ing") plus the test
fixture's real cards into the in-memory CardIndex that card_lookup() serves, then times
reading and checking a 75-card list (60 + 15, two misspelled names) `--runs` times and
prints the median beside the calibration figure. Target (issue 28): <= 0.1x calibration.
Also prints, for information, building the index (once per process and card load) and
one "did you mean" alone.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from tournaments.decklists.check import check_decklist  # noqa: E402
from tournaments.decklists.lookup import CardIndex  # noqa: E402
from tournaments.decklists.parse import card_key, parse_decklist  # noqa: E402
from tournaments.decklists.scryfall import card_info  # noqa: E402
from tournaments.decklists.types import CardInfo  # noqa: E402

TARGET = 0.1
FIXTURE = ROOT / "tests" / "fixtures" / "cards-small.json"

ADJECTIVES = [
    "Ancient",
    "Arcane",
    "Blazing",
    "Bloodthirsty",
    "Bound",
    "Burning",
    "Cackling",
    "Cruel",
    "Dark",
    "Dauntless",
    "Dread",
    "Elder",
    "Eternal",
    "Fiery",
    "Frenzied",
    "Gilded",
    "Grim",
    "Hallowed",
    "Hidden",
    "Howling",
    "Hungry",
    "Iron",
    "Lost",
    "Mighty",
    "Molten",
    "Mystic",
    "Nimble",
    "Primal",
    "Radiant",
    "Raging",
    "Reckless",
    "Relentless",
    "Restless",
    "Sacred",
    "Savage",
    "Shadow",
    "Silent",
    "Skyward",
    "Spectral",
    "Storm",
    "Sunlit",
    "Thundering",
    "Twisted",
    "Unholy",
    "Vengeful",
    "Verdant",
    "Vicious",
    "Wandering",
    "Wild",
    "Wicked",
    "Withering",
]
NOUNS = [
    "Angel",
    "Archer",
    "Avenger",
    "Bolt",
    "Champion",
    "Charm",
    "Colossus",
    "Command",
    "Crusader",
    "Dragon",
    "Drake",
    "Dreamer",
    "Elemental",
    "Envoy",
    "Familiar",
    "Fury",
    "Giant",
    "Goblin",
    "Golem",
    "Guardian",
    "Harbinger",
    "Herald",
    "Hydra",
    "Knight",
    "Lancer",
    "Leviathan",
    "Mage",
    "Marauder",
    "Mystic",
    "Oracle",
    "Phoenix",
    "Prophet",
    "Ranger",
    "Reaper",
    "Revenant",
    "Sage",
    "Scout",
    "Seer",
    "Sentinel",
    "Serpent",
    "Shaman",
    "Specter",
    "Sphinx",
    "Strike",
    "Titan",
    "Vampire",
    "Warden",
    "Wurm",
    "Zealot",
    "Blast",
    "Ritual",
    "Growth",
    "Denial",
    "Insight",
    "Rebirth",
    "Pact",
    "Ruin",
    "Vision",
    "Charge",
    "Surge",
    "Tithe",
    "Oath",
]
PLACES = (
    "the Ages", "Dawn", "the Deep", "Dusk", "the Forge", "the Hollow", "the Meek", "the Mind",
    "the Nine Skies", "the Spire", "the Storm", "Thorns", "the Tides", "the Void", "the Wastes",
    "the Wild", "Winter", "Shadows", "Ruin", "Glory",
)  # fmt: skip
FORMATS = ("standard", "pioneer", "modern", "legacy", "vintage", "pauper")


def synthetic_cards(count: int, seed: int = 28) -> list[CardInfo]:
    rng = random.Random(seed)
    legal = {f: "legal" for f in FORMATS}
    seen = {card_key(c.name) for c in real_cards()}
    cards: list[CardInfo] = []
    types = ("Creature \u2014 Elf", "Instant", "Sorcery", "Artifact", "Enchantment", "Land")
    while len(cards) < count:
        shape = rng.random()
        if shape < 0.4:
            name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
        elif shape < 0.7:
            name = f"{rng.choice(NOUNS)} of {rng.choice(PLACES)}"
        elif shape < 0.9:
            name = f"{rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} of {rng.choice(PLACES)}"
        else:
            name = f"{rng.choice(NOUNS)}'s {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)}"
        if rng.random() < 0.3:
            name = f"{name} {rng.choice(NOUNS)}"
        key = card_key(name)
        if key in seen:
            continue
        seen.add(key)
        cards.append(CardInfo(name, rng.choice(types), legal))
    return cards


def real_cards() -> list[CardInfo]:
    infos = (card_info(c) for c in json.loads(FIXTURE.read_text("utf-8")))
    return list({card_key(i.name): i for i in reversed(list(infos)) if i is not None}.values())


def decklist(cards: list[CardInfo], rng: random.Random) -> str:
    """60 + 15 from the synthetic cards, four of each but the lands, two names misspelled."""
    spells = rng.sample(cards, 13)
    lines = [f"4 {c.name}" for c in spells[:9]] + ["24 Island"]
    side = [f"3 {c.name}" for c in spells[9:]] + ["3 Duress"]
    for which in (0, 5):  # drop a letter, swap two
        name = spells[which].name
        i = len(name) // 2
        wrong = (
            name[:i] + name[i + 1 :]
            if which == 0
            else name[:i] + name[i + 1] + name[i] + name[i + 2 :]
        )
        lines[which] = f"4 {wrong}"
    return "\n".join(lines) + "\n\nSideboard\n" + "\n".join(side)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=30_000)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    from calibration import print_calibration, ratio_line

    print_calibration()
    cards = synthetic_cards(args.cards - len(real_cards())) + real_cards()
    start = time.perf_counter()
    index = CardIndex(cards)
    built_ms = (time.perf_counter() - start) * 1000
    text = decklist(cards[: args.cards - 40], random.Random(1))
    parsed = parse_decklist(text)
    total = sum(line.count for line in (*parsed.main, *parsed.side))
    problems = check_decklist(parsed, deck_format="modern", cards=index)
    assert total == 75, total
    misspelled = [p for p in problems if "is not a card" in p.message]
    assert len(misspelled) == 2, problems
    timings: list[float] = []
    for _ in range(args.runs):
        start = time.perf_counter()
        check_decklist(parse_decklist(text), deck_format="modern", cards=index)
        timings.append((time.perf_counter() - start) * 1000)
    suggest_timings: list[float] = []
    for _ in range(args.runs):
        start = time.perf_counter()
        index.suggest(card_key("Lightning Blot"))
        suggest_timings.append((time.perf_counter() - start) * 1000)
    print(f"cards: {len(index):,}; index built in {built_ms:.0f} ms (once per process and load)")
    for problem in misspelled:
        print(f"  {problem}")
    print(f"one 'did you mean': median {statistics.median(suggest_timings):.2f} ms")
    median = statistics.median(timings)
    print(
        f"read and check a 75-card list (2 misspelled): median {median:.2f} ms, "
        f"max {max(timings):.2f} ms over {args.runs} runs"
    )
    print(ratio_line("75-card check against 30,000 cards ", median, TARGET))


if __name__ == "__main__":
    main()
