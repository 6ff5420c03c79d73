"""Records: classes of named fields, equal when their fields are and shown as
``Name(field=value, ...)``, as ``@dataclass`` makes them, without what that costs at import.

``dataclasses`` writes each class's ``__init__``, ``__repr__`` and ``__eq__`` (and a frozen one's
``__hash__``, ``__setattr__``, ``__delattr__``) as source text and compiles it: about half a
millisecond a class, ~20 ms of every command for the records its modules define (a command
runs for as little as 0.1 s). A record keeps its fields in ``__slots__`` and writes its
``__init__``, whose parameters name the fields in order; equality, ``repr``, ``_replace`` and
(``FrozenRecord``) hashing are shared here, over those fields but the ones it names in
``_uncompared`` (a dataclass field's ``compare=False, repr=False``), as a dataclass's are
(dataclasses.py ``_process_class``: ``__eq__`` compares the field tuples of two instances of the
same class; a dataclass with ``eq`` and not ``frozen`` is unhashable).

Modules a command imports on its way to the cluster (the API, the control plane, the
scheduler, the kubelet, kubectl's verbs) define records; modules only some verbs reach (the
network simulation behind ``exec``, the DaemonSet controller's node plans) may keep
dataclasses. A ``FrozenRecord`` does not refuse an assignment, as a frozen dataclass would:
nothing assigns to one after ``__init__``.
"""

from __future__ import annotations


class Record:
    __slots__ = ()
    __hash__ = None  # (equal by value, so not hashable, as a mutable dataclass)
    _params: tuple[str, ...] = ()  # every field, in order
    _fields: tuple[str, ...] = ()  # those compared, hashed and shown
    _uncompared: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "__init__" not in cls.__dict__:  # (a base of records, as FrozenRecord)
            return
        code = cls.__init__.__code__
        cls._params = code.co_varnames[1:code.co_argcount + code.co_kwonlyargcount]
        cls._fields = tuple(f for f in cls._params if f not in cls._uncompared)
        if set(cls._params) != set(cls.__slots__):
            raise TypeError(f"{cls.__qualname__}: __init__'s parameters are not its __slots__")

    def _values(self) -> tuple:
        return tuple([getattr(self, f) for f in self._fields])

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __repr__(self) -> str:
        fields = ", ".join(f"{f}={getattr(self, f)!r}" for f in self._fields)
        return f"{self.__class__.__qualname__}({fields})"

    def _replace(self, **changes):
        """A new record with ``changes`` (``dataclasses.replace``; namedtuple's name)."""
        return self.__class__(**{f: changes.pop(f) if f in changes else getattr(self, f)
                                 for f in self._params}, **changes)


class FrozenRecord(Record):
    """A record that is not changed once made: hashable by its fields (a frozen dataclass)."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self._values())


class IdentityRecord(Record):
    """A record equal only to itself and hashed by identity (a frozen dataclass with
    ``eq=False``), shown by its fields."""

    __slots__ = ()
    __eq__ = object.__eq__
    __hash__ = object.__hash__
