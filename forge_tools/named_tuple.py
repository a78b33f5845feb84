"""`NamedTuple` for forge-tools' own records: `typing.NamedTuple`, less its annotation check.

forge-tools defines some sixty NamedTuples on the way to every answer, and defining one costs about
three times what `collections.namedtuple` costs for the same fields. Most of the difference is
`typing` checking each field's annotation: with `from __future__ import annotations` (every module
here) each annotation is a string, which `typing` compiles into a `ForwardRef` whether or not anything
ever reads it. Nothing in forge-tools reads a record's annotations at run time, and a type checker reads
the source, not them.

So a class written `class Rule(NamedTuple): ...` with this module's `NamedTuple` is built by
`collections.namedtuple` from the annotated fields and their defaults, and then given the class body's
methods, properties and docstring, exactly as `typing.NamedTuple` does; `__annotations__` keeps the
annotations as written. The rules `typing` enforces are enforced the same way: a field without a
default after one with a default, overwriting a namedtuple attribute (`_replace`, `__new__`, ...) or
a base other than `NamedTuple` is refused at definition. Type checkers see `typing.NamedTuple` itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing import NamedTuple as NamedTuple
else:
    import collections

    #: what the class body may not set (namedtuple's own), and what is not copied from it
    _PROHIBITED = frozenset({"__new__", "__init__", "__slots__", "__getnewargs__", "_fields",
                             "_field_defaults", "_make", "_replace", "_asdict", "_source"})
    _NOT_COPIED = frozenset({"__module__", "__qualname__", "__name__", "__annotations__"})

    class _Builder(type):
        """The metaclass of the base a class statement gets for `NamedTuple` (see `__mro_entries__`):
        it returns the namedtuple class instead of a subclass of that base."""

        def __new__(mcs, typename: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
            if bases != (_Base,):
                raise TypeError(f"{typename}: a NamedTuple can have no base but NamedTuple")
            annotations = namespace.get("__annotations__", {})
            with_default: list[str] = []
            for name in annotations:
                if name in namespace:
                    with_default.append(name)
                elif with_default:
                    raise TypeError(f"{typename}: field {name} without a default cannot follow "
                                    f"{', '.join(with_default)}, which have one")
            made = collections.namedtuple(typename, list(annotations),
                                          defaults=[namespace[name] for name in with_default],
                                          module=namespace["__module__"])
            made.__annotations__ = dict(annotations)
            made.__qualname__ = namespace.get("__qualname__", typename)
            for key, value in namespace.items():
                if key in _PROHIBITED:
                    raise AttributeError(f"{typename}: cannot overwrite NamedTuple attribute {key}")
                if key not in _NOT_COPIED and key not in made._fields:
                    setattr(made, key, value)
            return made

    _Base = type.__new__(_Builder, "NamedTuple", (), {})

    def NamedTuple(typename: str, fields: Any = None, /, **kwargs: Any) -> Any:
        """The functional form is `typing.NamedTuple`'s (forge-tools uses the class form)."""
        import typing

        return typing.NamedTuple(typename, fields, **kwargs)

    NamedTuple.__mro_entries__ = lambda bases: (_Base,)
