"""Generated names (apimachinery util/rand.String, apiserver names.SimpleNameGenerator)."""

import random

import pytest

from kubesim.api import names
from kubesim.api.names import NAME_ALPHABET, generate_name, random_string


def test_random_strings_use_consonants_and_digits_and_repeat_with_the_seed():
    a, b = random_string(random.Random(1)), random_string(random.Random(1))
    assert a == b and len(a) == 5 and set(a) <= set(NAME_ALPHABET)


def test_a_generated_name_cuts_the_base_to_58_characters():
    name = generate_name("x" * 70, random.Random(0))
    assert len(name) == 63 and name.startswith("x" * 58) and not name.startswith("x" * 59)


@pytest.mark.parametrize("metadata,generated", [
    ({"generateName": "web-68d995574f-", "name": "web-68d995574f-x2b9k"}, True),
    ({"generateName": "db-", "name": "db-0"}, False),            # a StatefulSet's ordinal name
    ({"generateName": "db-", "name": "db-12345"}, False),        # 1 and 3 are never drawn
    ({"generateName": "a-", "name": "other-bcdfg"}, False),
    ({"name": "web-x2b9k"}, False),
    ({"generateName": "x" * 70, "name": "x" * 58 + "bcdfg"}, True),  # the prefix cut to 58
])
def test_a_name_looks_generated_only_when_it_is_its_prefix_and_a_drawn_suffix(metadata, generated):
    assert names.looks_generated(metadata) is generated
