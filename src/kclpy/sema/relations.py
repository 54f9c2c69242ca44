"""Relations between types: equality, subsumption, assignability, supremum, widening.

These follow the reference's rules, quirks included, because a program the
reference accepts must be accepted here too:

* everything is assignable to ``any``; ``None`` is assignable to everything;
* ``int`` is assignable to ``float`` (and to a float literal);
* a literal is assignable to its base type (an int or bool literal also to float);
* ``str`` is assignable to a string literal type (it cannot be decided statically);
* lists and dicts are covariant; a schema is assignable to its bases;
* unions: every member of the source must fit, some member of the target must.

``sup`` joins types into a union, dropping members subsumed by others; ``widen``
turns a value's type into the type a variable gets (``1`` -> ``int``).
"""

from __future__ import annotations

from kclpy.sema.symbols import SchemaType
from kclpy.sema.types import (
    ANY,
    ANY_F,
    FLOAT,
    INT,
    NONE_F,
    PRIMITIVE,
    STR,
    DictAttr,
    DictType,
    FuncType,
    ListType,
    LitType,
    ModuleType,
    NumMulType,
    PrimType,
    Type,
    UnionType,
    install_lattice,
    is_assignable_kind,
    is_primitive,
)


def equal(left: Type, right: Type) -> bool:
    """Structural equality (dict literal key positions are ignored)."""
    if left is right:
        return True
    if type(left) is not type(right) or left.flags != right.flags:
        return False
    if isinstance(left, PrimType):
        return True
    if isinstance(left, LitType):
        assert isinstance(right, LitType)
        return left.value == right.value and type(left.value) is type(right.value)
    if isinstance(left, ListType):
        assert isinstance(right, ListType)
        return equal(left.elem, right.elem)
    if isinstance(left, DictType):
        assert isinstance(right, DictType)
        return (
            equal(left.key, right.key)
            and equal(left.val, right.val)
            and _same_attrs(left.attrs, right.attrs)
        )
    if isinstance(left, UnionType):
        assert isinstance(right, UnionType)
        return len(left.types) == len(right.types) and all(
            equal(a, b) for a, b in zip(left.types, right.types, strict=True)
        )
    if isinstance(left, SchemaType):
        assert isinstance(right, SchemaType)
        return left.info is right.info or left.info.full_name == right.info.full_name
    if isinstance(left, NumMulType):
        assert isinstance(right, NumMulType)
        return (left.literal, left.raw, left.suffix) == (right.literal, right.raw, right.suffix)
    if isinstance(left, FuncType):
        assert isinstance(right, FuncType)
        return _same_function(left, right)
    if isinstance(left, ModuleType):
        assert isinstance(right, ModuleType)
        return left.pkgpath == right.pkgpath
    return False


def _same_attrs(left: dict[str, DictAttr] | None, right: dict[str, DictAttr] | None) -> bool:
    if not left or not right:
        return not left and not right
    if left.keys() != right.keys():
        return False
    return all(equal(left[name].type, right[name].type) for name in left)


def _same_function(left: FuncType, right: FuncType) -> bool:
    if len(left.params) != len(right.params) or left.variadic != right.variadic:
        return False
    if not equal(left.ret, right.ret):
        return False
    return all(equal(a.type, b.type) for a, b in zip(left.params, right.params, strict=True))


def subsume(lhs: Type, rhs: Type, check_left_any: bool) -> bool:
    """Whether ``lhs`` fits where ``rhs`` is expected (the reference's ``subsume``)."""
    if lhs is rhs:  # every type fits itself (half the calls: an attribute's own type)
        return True
    lflags = lhs.flags
    rflags = rhs.flags
    if (check_left_any and lflags & ANY_F) or rflags & ANY_F or lflags & NONE_F:
        return True
    if isinstance(lhs, UnionType):
        return all(subsume(member, rhs, False) for member in lhs.types)
    if isinstance(rhs, UnionType):
        return any(subsume(lhs, member, False) for member in rhs.types)
    if isinstance(lhs, SchemaType):
        return isinstance(rhs, SchemaType) and lhs.info.is_sub_schema_of(rhs.info)
    if lflags & INT and rflags & FLOAT:
        return True
    if isinstance(lhs, NumMulType) and isinstance(rhs, NumMulType):
        return _subsume_multiplier(lhs, rhs)
    if is_primitive(lhs) and is_primitive(rhs):
        return lflags == rflags
    if isinstance(lhs, LitType):
        return _subsume_literal(lhs, rhs)
    if isinstance(lhs, ListType) and isinstance(rhs, ListType):
        return subsume(lhs.elem, rhs.elem, check_left_any)
    if isinstance(lhs, DictType) and isinstance(rhs, DictType):
        return _subsume_part(lhs, rhs, 0, check_left_any) and _subsume_part(
            lhs, rhs, 1, check_left_any
        )
    if lflags & STR and isinstance(rhs, LitType) and rflags & STR:
        return True
    if isinstance(lhs, FuncType) and isinstance(rhs, FuncType):
        return _subsume_function(lhs, rhs, check_left_any)
    return equal(lhs, rhs)


def _subsume_part(lhs: DictType, rhs: DictType, index: int, check_left_any: bool) -> bool:
    """``subsume`` of the key (``index`` 0) or value (1) types of two dicts.

    A config literal's key and value types are the unions of its entries' (built when
    first read, ``DictType.of_entries``), and building a union compares its members
    pairwise. Where the entries decide the answer the unions are not built: every
    member of a union is one of the entries (or of their unions), so the union on the
    left fits when each entry fits, and the union on the right takes nothing that no
    entry takes; ``_members`` leaves out the entries whose union is ``any``."""
    left = lhs.pending_part(index)
    if left is not None:
        members = _members(left)
        if members is not None:
            target = _part(rhs, index)
            # (a union checks its members without ``check_left_any``: the stricter way)
            if all(subsume(member, target, False) for member in members):
                return True
    source = _part(lhs, index)
    right = rhs.pending_part(index)
    if right is not None and not _fits_anything(source, check_left_any):
        members = _members(right)
        if members is not None and not any(
            subsume(source, member, check_left_any) for member in members
        ):
            return False
    return subsume(source, _part(rhs, index), check_left_any)


def _part(t: DictType, index: int) -> Type:
    return t.val if index else t.key


def _fits_anything(source: Type, check_left_any: bool) -> bool:
    """Whether ``subsume`` answers for ``source`` before looking at the target (or,
    for a union, looks at the target member by member)."""
    flags = source.flags
    return bool((check_left_any and flags & ANY_F) or flags & NONE_F) or isinstance(
        source, UnionType
    )


def _members(entries: list[Type]) -> list[Type] | None:
    """The members of the union of ``entries`` may be (each entry, a union's members),
    voids left out; None when that union may be ``any`` (no member, or more than
    ``SUP_LIMIT``)."""
    members: list[Type] = []
    for entry in entries:
        if isinstance(entry, UnionType):
            members.extend(entry.types)
        else:
            members.append(entry)
    members = [member for member in members if not member.flags & 1]  # void: the bottom
    return members if 0 < len(members) <= SUP_LIMIT else None


def _subsume_multiplier(lhs: NumMulType, rhs: NumMulType) -> bool:
    if lhs.literal and rhs.literal:
        return lhs.raw == rhs.raw and lhs.suffix == rhs.suffix
    return lhs.literal or not rhs.literal


def _subsume_literal(lhs: LitType, rhs: Type) -> bool:
    if isinstance(rhs, LitType):
        return lhs.flags == rhs.flags and lhs.value == rhs.value
    if is_primitive(rhs):
        if rhs.flags & FLOAT and not lhs.flags & STR:
            return True
        if rhs.flags == lhs.flags & PRIMITIVE:
            return True  # the literal's own base type: ``str`` is in ``str(...)``
        # The reference compares the printed names: ``str(int)`` even fits ``int``.
        return rhs.ty_str() in lhs.ty_str()
    return False


def _subsume_function(lhs: FuncType, rhs: FuncType, check_left_any: bool) -> bool:
    ok = len(lhs.params) == len(rhs.params)
    for left_param, right_param in zip(lhs.params, rhs.params, strict=False):
        ok = ok and subsume(right_param.type, left_param.type, check_left_any)
    return ok and subsume(lhs.ret, rhs.ret, check_left_any)


def assignable_to(value: Type, expected: Type) -> bool:
    """The reference's ``assignable_to``: a storable type that ``subsume``s."""
    if not is_assignable_kind(value):
        return False
    return subsume(value, expected, True)


def is_upper_bound(upper: Type, lower: Type) -> bool:
    """Whether ``upper`` is an upper bound of ``lower``."""
    return subsume(lower, upper, False)


SUP_LIMIT = 64  # more distinct members than this and the supremum is ``any``


def sup(types: list[Type]) -> Type:
    """The least upper bound of ``types``: a union without subsumed members.

    Past ``SUP_LIMIT`` distinct members the result is ``any``: the reference's union
    would be huge (and quadratic to build); ``any`` can only silence checks."""
    if types:
        first = types[0]  # one type, or the same one each time (identity: a C loop)
        if type(first) is not UnionType and types.count(first) == len(types):
            return first if not first.flags & 1 else ANY
        if len(types) == 2:
            pair = _sup_of_two(first, types[1])
            if pair is not None:
                return pair
    distinct: dict[object, Type] = {}
    for item in types:
        _flatten(item, distinct)
        if len(distinct) > SUP_LIMIT:
            return ANY
    flat = list(distinct.values())
    if len(flat) > 1 and not all(type(item) is LitType for item in flat):
        flat = _drop_subsumed(flat)  # (distinct literals never subsume each other)
    if not flat:
        return ANY
    if len(flat) == 1:
        return flat[0]
    return UnionType(tuple(flat))


def _sup_of_two(first: Type, second: Type) -> Type | None:
    """``sup([first, second])`` of two types that are not unions, voids or both
    literals, without their ``type_key``s (which read every level of a config literal's
    type): types with equal keys are ``equal``, and ``_drop_subsumed`` drops the second
    of two equal types as the keys would have; None for any other pair."""
    if (
        type(first) is UnionType
        or type(second) is UnionType
        or (first.flags | second.flags) & 1
        or (type(first) is LitType and type(second) is LitType)
    ):
        return None
    kept = _drop_subsumed([first, second])
    return kept[0] if len(kept) == 1 else UnionType((first, second))


def _flatten(item: Type, out: dict[object, Type]) -> None:
    if isinstance(item, UnionType):
        for member in item.types:
            _flatten(member, out)
    elif not item.flags & 1:  # void is the bottom type
        out.setdefault(type_key(item), item)


def type_key(t: Type) -> object:
    """A hashable key equal for types that ``equal`` considers equal (cached)."""
    key = t.skey
    if key is None:
        key = t.skey = _compute_key(t)
    return key


def _compute_key(t: Type) -> object:
    if isinstance(t, PrimType):
        return t.name
    if isinstance(t, LitType):
        return ("lit", t.flags, type(t.value).__name__, t.value)
    if isinstance(t, ListType):
        return ("list", type_key(t.elem))
    if isinstance(t, DictType):
        attrs = tuple((name, type_key(a.type)) for name, a in (t.attrs or {}).items())
        return ("dict", type_key(t.key), type_key(t.val), attrs)
    if isinstance(t, UnionType):
        return ("union", tuple(type_key(member) for member in t.types))
    if isinstance(t, SchemaType):
        return ("schema", t.info.full_name)
    if isinstance(t, NumMulType):
        return ("unit", t.literal, t.raw, t.suffix)
    if isinstance(t, FuncType):
        params = tuple(type_key(p.type) for p in t.params)
        return ("func", params, type_key(t.ret), t.variadic)
    if isinstance(t, ModuleType):
        return ("module", t.pkgpath)
    return ("other", id(t))


_KIND_OF: dict[type, str] = {
    LitType: "scalar",
    NumMulType: "scalar",
    ListType: "list",
    DictType: "dict",
    SchemaType: "schema",
    FuncType: "func",
    ModuleType: "module",
}


def _drop_subsumed(items: list[Type]) -> list[Type]:
    removed = [False] * len(items)
    count = len(items)
    for i in range(count):
        if removed[i]:
            continue
        source = items[i]
        source_literal = isinstance(source, LitType)
        source_kind = _KIND_OF.get(type(source))
        for j in range(i + 1, count):
            if removed[j]:
                continue
            target = items[j]
            if source_literal and isinstance(target, LitType):
                continue  # distinct literals never subsume each other
            target_kind = _KIND_OF.get(type(target))
            if source_kind and target_kind and source_kind != target_kind:
                continue  # a list, a dict, a schema, a function and a scalar never relate
            if equal(source, target):
                removed[j] = True
            elif subsume(source, target, False):
                removed[i] = True
                break
            elif subsume(target, source, False):
                removed[j] = True
    return [item for item, gone in zip(items, removed, strict=True) if not gone]


ITSELF = PrimType(0, "itself")  # ``Type.wide`` of a type that widens to itself


def widen(t: Type) -> Type:
    """The type a variable gets from a value of type ``t`` (literals to base types).

    Kept on the type once computed: nested literals widen each level once, not
    once per enclosing level. A type that widens to itself keeps ``ITSELF`` instead:
    a type pointing at itself is a cycle, and a dropped program full of them (a
    schema type per config) waited for the cycle collector instead of being freed
    by reference counting."""
    wide = t.wide
    if wide is None:
        wide = _widen(t)
        t.wide = ITSELF if wide is t else wide
    return t if wide is ITSELF else wide


def _widen(t: Type) -> Type:
    flags = t.flags
    if flags & NONE_F:
        return ANY
    if isinstance(t, LitType):
        return t.base
    if isinstance(t, ListType):
        elem = widen(t.elem)
        return t if elem is t.elem else ListType(elem)
    if isinstance(t, DictType):
        key = widen(t.key)
        val = widen(t.val)
        if key is t.key and val is t.val:
            return t
        return DictType(key, val, t.attrs)
    if isinstance(t, UnionType):
        members = t.types
        head = members[0]
        if isinstance(head, LitType) and all(member.flags == head.flags for member in members):
            return head.base  # literals of one base type
        return sup([widen(member) for member in members])
    return t


def widen_union(t: Type) -> Type:
    """Widen only unions (``1 | 2`` -> ``int``), as the operator checks do."""
    return widen(t) if isinstance(t, UnionType) else t


install_lattice(widen, sup)  # the lazy types of sema.types call these
