"""Records behave as the dataclasses they replace: the same equality, hashing, repr and
replace, field for field."""

import dataclasses

import pytest

from kubesim.api.record import FrozenRecord, IdentityRecord, Record


class Point(Record):
    __slots__ = ("label", "x", "y")

    def __init__(self, x: int, y: int = 0, label: str | None = None):
        self.x, self.y, self.label = x, y, label


@dataclasses.dataclass
class PointDC:
    x: int
    y: int = 0
    label: str | None = None


class Key(FrozenRecord):
    __slots__ = ("kind", "name", "note")
    _uncompared = ("note",)

    def __init__(self, kind: str, name: str, note: dict | None = None):
        self.kind, self.name, self.note = kind, name, note


@dataclasses.dataclass(frozen=True)
class KeyDC:
    kind: str
    name: str
    note: dict | None = dataclasses.field(default=None, compare=False, hash=False, repr=False)


def test_a_record_compares_and_shows_its_fields_in_order_as_a_dataclass_does():
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(2, 1)
    assert Point(1) != PointDC(1) and Point(1) != (1, 0, None)
    assert repr(Point(1, 2, "a")).removeprefix("Point") == repr(PointDC(1, 2, "a")).removeprefix("PointDC")
    with pytest.raises(TypeError):
        hash(Point(1))  # equal by value and mutable: unhashable, as the dataclass
    with pytest.raises(TypeError):
        hash(PointDC(1))


def test_a_frozen_record_hashes_by_the_fields_it_compares():
    a, b = Key("Pod", "web", {"x": 1}), Key("Pod", "web", None)
    assert a == b and hash(a) == hash(b) == hash(("Pod", "web"))
    assert hash(KeyDC("Pod", "web", {"x": 1})) == hash(("Pod", "web"))
    assert repr(a).removeprefix("Key") == repr(KeyDC("Pod", "web", {"x": 1})).removeprefix("KeyDC")
    assert len({a, b, Key("Pod", "db")}) == 2


def test_replace_makes_a_new_record_as_dataclasses_replace_does():
    p = Point(1, 2, "a")
    q = p._replace(y=5)
    assert (q.x, q.y, q.label) == (1, 5, "a") and p.y == 2
    k = Key("Pod", "web", {"x": 1})._replace(name="db")
    assert (k.kind, k.name, k.note) == ("Pod", "db", {"x": 1})
    with pytest.raises(TypeError):
        p._replace(z=1)


def test_a_record_whose_init_and_slots_disagree_is_refused():
    with pytest.raises(TypeError):
        class Bad(Record):
            __slots__ = ("a", "b")

            def __init__(self, a, c):
                self.a = a


def test_field_error_written_out_is_the_frozen_dataclass_it_was():
    from kubesim.errors import FieldError

    @dataclasses.dataclass(frozen=True)
    class FieldErrorDC:
        field: str
        type: str
        detail: str = ""
        value: object = None
        has_value: bool = False

    for args in (("spec.x", "Required value"), ("spec.y", "Invalid value", "must be positive", -1, True)):
        e, d = FieldError(*args), FieldErrorDC(*args)
        assert repr(e).partition("(")[2] == repr(d).partition("(")[2]
        assert hash(e) == hash(d) and e == FieldError(*args) and e != FieldError("other", "Required value")


class Term(IdentityRecord):
    __slots__ = ("key", "values")

    def __init__(self, key: str, values: tuple = ()):
        self.key, self.values = key, values


@dataclasses.dataclass(frozen=True, eq=False)
class TermDC:
    key: str
    values: tuple = ()


def test_an_identity_record_is_equal_only_to_itself_as_a_dataclass_without_eq():
    a, b = Term("zone", ("a",)), Term("zone", ("a",))
    assert a == [a][0] and a != b and len({a, b}) == 2 and hash(a) == object.__hash__(a)
    d = TermDC("zone", ("a",))
    assert d != TermDC("zone", ("a",)) and hash(d) == object.__hash__(d)
    assert repr(a).partition("(")[2] == repr(d).partition("(")[2]
