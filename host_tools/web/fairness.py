"""The dice-fairness self-test: faces the board's electronic dice threw in a match, against the expected count, with a chi-square p-value.

The board has no command that throws its hardware dice on demand, so the test counts the dice it
threw in the games' records: every throw carrying an ``i`` (its index in the committed seed,
``firmware/board/fairdice.py``) is an electronic one; dice entered by hand are left out.
"""

import math

FACES = 6


def thrown_dice(records):
    """The faces of every electronic throw in these records, in order."""
    faces = []
    for record in records:
        for ev in (record or {}).get("events") or []:
            if "i" not in ev or ev.get("k") not in ("open", "parity", "roll"):
                continue
            dice = ev.get("dice") if "dice" in ev else [ev.get("die")]
            faces += [d for d in dice if isinstance(d, int) and 1 <= d <= FACES]
    return faces


def chi_square(counts):
    """Pearson's statistic of counts against equal expected counts."""
    n = sum(counts)
    if n == 0:
        return 0.0
    expected = n / len(counts)
    return sum((c - expected) ** 2 / expected for c in counts)


def chi2_sf(x, dof):
    """P(X >= x) for a chi-square variable with an odd number of degrees of freedom, by the
    closed form for odd dof (Abramowitz & Stegun 26.4.4): 2 Q(sqrt x) + 2 Z(sqrt x) times
    the sum over r = 1..(dof-1)/2 of x^(r-1/2) / (1*3*...*(2r-1)), Q and Z the normal tail and
    density."""
    if dof < 1 or dof % 2 == 0:
        raise ValueError("odd degrees of freedom only")
    if x <= 0:
        return 1.0
    root = math.sqrt(x)
    p = math.erfc(root / math.sqrt(2))
    density = math.exp(-x / 2) / math.sqrt(2 * math.pi)
    term, total = root, 0.0
    for r in range(1, (dof - 1) // 2 + 1):
        if r > 1:
            term *= x / (2 * r - 1)
        total += term
    return min(1.0, p + 2 * density * total)


def self_test(records):
    """The figures the page plots: counts per face 1..6, the expected count, chi-square, p."""
    faces = thrown_dice(records)
    counts = [faces.count(f) for f in range(1, FACES + 1)]
    n = len(faces)
    stat = chi_square(counts)
    return {"n": n, "counts": counts, "expected": n / FACES if n else 0.0,
            "chi2": round(stat, 3), "p": round(chi2_sf(stat, FACES - 1), 4) if n else None,
            "source": "the %d electronic dice thrown in this match's games" % n}
