"""forge-tools' `NamedTuple` (`forge_tools.named_tuple`) makes the class `typing.NamedTuple` makes,
without compiling the annotations: the same fields, defaults, methods, docstring, pickling and
refusals, with the annotations as written."""

from __future__ import annotations

import pickle
import typing
from typing import Any

import pytest

from forge_tools import named_tuple

BODY = '''
class Point(NamedTuple):
    """A point."""

    x: int
    y: int = 0
    label: str | None = None

    @property
    def norm(self) -> int:
        return abs(self.x) + abs(self.y)

    def moved(self, by: int) -> Point:
        return self._replace(x=self.x + by)

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"
'''


def build(base: object, body: str = BODY, name: str = "Point") -> Any:
    namespace: dict[str, object] = {"__name__": __name__, "NamedTuple": base}
    exec(compile("from __future__ import annotations\n" + body, __file__, "exec"), namespace)
    made = namespace[name]
    assert isinstance(made, type)
    return made


Point = build(named_tuple.NamedTuple)  # module level: pickle finds it by name


def test_the_class_is_the_one_typing_makes_but_for_the_annotations() -> None:
    ours, theirs = Point, build(typing.NamedTuple)
    for cls in (ours, theirs):
        p = cls(3, label="a")
        assert tuple(p) == (3, 0, "a") and p.norm == 3 and str(p) == "(3, 0)"
        assert p.moved(2) == cls(5, 0, "a") and p._asdict() == {"x": 3, "y": 0, "label": "a"}
        assert repr(p) == "Point(x=3, y=0, label='a')" and cls.__doc__ == "A point."
        assert cls._fields == ("x", "y", "label") and cls._field_defaults == {"y": 0, "label": None}
        assert cls.__mro__ == (cls, tuple, object) and cls.__slots__ == ()
        assert cls.__module__ == __name__ and cls.__qualname__ == "Point"
    assert ours.__annotations__ == {"x": "int", "y": "int", "label": "str | None"}  # as written
    assert isinstance(theirs.__annotations__["x"], typing.ForwardRef)  # compiled at definition
    assert pickle.loads(pickle.dumps(ours(1, 2))) == ours(1, 2)


@pytest.mark.parametrize(("body", "error"), [
    ("class Bad(NamedTuple):\n    a: int = 1\n    b: int\n", TypeError),
    ("class Bad(NamedTuple):\n    a: int\n    def _replace(self): ...\n", AttributeError),
    ("class Bad(NamedTuple):\n    a: int\n    __slots__ = ('a',)\n", AttributeError),
    ("class Mixin: ...\nclass Bad(NamedTuple, Mixin):\n    a: int\n", TypeError),
])
def test_what_typing_refuses_is_refused(body: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        build(typing.NamedTuple, body, "Bad")
    with pytest.raises(error):
        build(named_tuple.NamedTuple, body, "Bad")


def test_the_package_s_records_are_built_so() -> None:
    from forge_tools.origin import Origin
    from forge_tools.rule import Rule

    for record in (Rule, Origin):
        assert record.__bases__ == (tuple,)
        assert all(isinstance(a, str) for a in record.__annotations__.values())
