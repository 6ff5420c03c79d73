"""Generated names (apimachinery util/rand.String, apiserver names.SimpleNameGenerator)."""

import random

from kubesim.api.names import NAME_ALPHABET, generate_name, random_string


def test_random_strings_use_consonants_and_digits_and_repeat_with_the_seed():
    a, b = random_string(random.Random(1)), random_string(random.Random(1))
    assert a == b and len(a) == 5 and set(a) <= set(NAME_ALPHABET)


def test_a_generated_name_cuts_the_base_to_58_characters():
    name = generate_name("x" * 70, random.Random(0))
    assert len(name) == 63 and name.startswith("x" * 58) and not name.startswith("x" * 59)
