"""Where a dict meets a schema: the type a dict gets once converted to the schema it
is assigned to (``upgrade_dict_to_schema``), and whether its literal keys fit one.

Pure functions over types, read by the assignability checks (``assign``) and by
the model (``Model.type_of``: a dict walked where a schema is expected).
"""

from __future__ import annotations

from kclpy.sema.relations import SUP_LIMIT, sup
from kclpy.sema.symbols import SchemaInfo, SchemaType
from kclpy.sema.types import ANY_F, STR, DictType, ListType, LitType, Type, UnionType


def upgrade_dict_to_schema(value: Type, expected: Type) -> Type:
    """The type a value gets once a dict is converted to the schema it is assigned to."""
    if isinstance(value, DictType):
        if isinstance(expected, SchemaType):
            return expected if dict_fits_schema(value, expected.info) else value
        if isinstance(expected, DictType):
            return DictType(
                upgrade_dict_to_schema(value.key, expected.key),
                upgrade_dict_to_schema(value.val, expected.val),
            )
        if isinstance(expected, UnionType):
            fits: list[Type] = [
                member
                for member in expected.types
                if isinstance(member, SchemaType) and dict_fits_schema(value, member.info)
            ]
            return sup(fits) if fits else value
    if isinstance(value, ListType) and isinstance(expected, ListType):
        return ListType(upgrade_dict_to_schema(value.elem, expected.elem))
    return value


def dict_fits_schema(value: DictType, info: SchemaInfo) -> bool:
    """Whether every literal key of a dict is an attribute of the schema."""
    if info.index_signature is not None:
        return True
    given = literal_key_names(value)
    if given is not None:
        return _literal_keys_fit(given, info)
    key = value.key
    if key.flags & ANY_F:
        return True
    names, has_signature = _schema_attr_names(info)
    if isinstance(key, LitType) and key.flags & STR:
        return str(key.value) in names or has_signature
    if isinstance(key, UnionType):
        if len(names) >= len(key.types):
            return all(
                isinstance(member, LitType) and str(member.value) in names for member in key.types
            )
        return has_signature
    return False


def literal_key_names(value: DictType) -> set[str] | None:
    """The keys of a config literal whose keys are all string literals, read without
    building their union (``DictType.of_entries``); None for any other dict type."""
    pending = value.pending_keys()
    if pending is None:
        return None
    given: set[str] = set()
    for key in pending:
        if not isinstance(key, LitType) or not key.flags & STR:
            return None
        given.add(str(key.value))
    return given


def _literal_keys_fit(given: set[str], info: SchemaInfo) -> bool:
    """``dict_fits_schema`` for string literal keys (as their union would answer)."""
    if not given or len(given) > SUP_LIMIT:
        return True  # the union would be `any`
    names, has_signature = _schema_attr_names(info)
    if len(given) == 1 or len(names) >= len(given):
        return given <= names or (len(given) == 1 and has_signature)
    return has_signature


def _schema_attr_names(info: SchemaInfo) -> tuple[set[str], bool]:
    names: set[str] = set()
    has_signature = info.index_signature is not None
    current: SchemaInfo | None = info
    depth = 0
    while current is not None and depth < 64:
        names.update(current.attrs)
        if current is not info:
            has_signature = has_signature and current.index_signature is not None
        current = current.base
        depth += 1
    return names, has_signature
