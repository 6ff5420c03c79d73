"""Generated names: apimachinery's random strings and the API server's ``generateName``.

Upstream: staging/src/k8s.io/apimachinery/pkg/util/rand/rand.go (``String``: lowercase
consonants and digits, no vowels, so no words are spelled) and
staging/src/k8s.io/apiserver/pkg/storage/names/generate.go (``SimpleNameGenerator``: the base
cut to 58 characters plus 5 random characters, 63 in all).

The random source is the caller's ``random.Random``, so a seeded one repeats its names
(DESIGN principle 6).
"""

from __future__ import annotations

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
MAX_GENERATED_NAME_LENGTH = 63
RANDOM_LENGTH = 5
MAX_NAME_LENGTH = MAX_GENERATED_NAME_LENGTH - RANDOM_LENGTH


def random_string(rng, n: int = RANDOM_LENGTH) -> str:
    """utilrand.String(n), drawn from ``rng``."""
    return "".join(rng.choice(NAME_ALPHABET) for _ in range(n))


def generate_name(base: str, rng) -> str:
    """SimpleNameGenerator.GenerateName: the base, cut to 58 characters, plus 5 random characters."""
    return base[:MAX_NAME_LENGTH] + random_string(rng)


def looks_generated(metadata: dict) -> bool:
    """Whether ``metadata``'s name is its ``generateName`` plus a generated suffix. kubesim draws
    generated names before admission (upstream: in BeforeCreate, after the mutating plugins, whose
    messages then name the prefix); a name given beside a prefix (a StatefulSet's ``web-0``)
    is the object's own."""
    prefix, name = metadata.get("generateName") or "", metadata.get("name") or ""
    rest = name[len(prefix[:MAX_NAME_LENGTH]):]
    return bool(prefix) and name.startswith(prefix[:MAX_NAME_LENGTH]) and len(rest) == RANDOM_LENGTH and \
        all(c in NAME_ALPHABET for c in rest)
