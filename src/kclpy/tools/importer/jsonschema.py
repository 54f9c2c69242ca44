"""``kcl import -m jsonschema``: a JSON Schema document to KCL, by kcl-go's rules.

``jsonschema_to_kcl(document, source, stem)`` returns the text of the one
generated file, as the reference's generator (kcl-go's ``genkcl_jsonschema``)
makes it: the document's schema walked keyword by keyword in the library's
evaluation order (``jsonschema_nodes``). An object schema (``type: object`` or
``properties``) becomes a KCL schema named by its ``$ref`` target, else by the
path of names that led to it, each part camel-cased (the root's name is its
``$id``'s last segment or the file's stem; then property keys, ``items0``,
``oneOf0``, ``anyOf0``, ``additionalProperties``, ``patternProperties0``).
``$ref`` and ``allOf`` merge their targets' keywords into the schema; ``oneOf`` and
``anyOf`` make unions; ``enum`` and ``const`` literal types; ``patternProperties``
and ``additionalProperties`` an index signature; the string, number and
collection keywords (and ``format``, ``not``, an ``anyOf`` of required keys)
checks. The root schema comes first, then the others sorted by name; schemas
under ``$defs`` only when referred to. A schema that contains itself is ``any``
at the repetition.
"""

from __future__ import annotations

from typing import Any

import attrs

from kclpy.source import SourceFile
from kclpy.tools.importer.failures import failure_at
from kclpy.tools.importer.jsonschema_checks import (
    all_of_checks,
    format_check,
    is_value,
    negated,
    own_check,
    pattern_only,
    required_fields,
)
from kclpy.tools.importer.jsonschema_nodes import Items, Node, keyword_order, read_node, resolve
from kclpy.tools.importer.kclgen import (
    ANY,
    ArrayType,
    CustomType,
    GenProperty,
    GenSchema,
    IndexSignature,
    KclType,
    Primitive,
    UnionType,
    Validation,
    ValueType,
    print_file,
)

MAX_STEPS = 200_000  # nodes converted, each $ref target again where it is used
COMPARE_BUDGET = 200_000  # values visited comparing nodes with their ancestors
_KCL_TYPES = {"string": "str", "boolean": "bool", "integer": "int", "number": "float"}


def jsonschema_to_kcl(document: Any, source: SourceFile, stem: str) -> str:
    """The KCL file of a JSON Schema document."""
    root = read_node(document, source, [])
    if root.kind != "object":
        raise failure_at(source, "a JSON Schema must be an object")
    converter = Converter(root, source)
    result = converter.convert(root, stem)
    schemas = [result.schema()] if result.is_schema else []
    schemas += [converter.results[name].schema() for name in sorted(converter.results)]
    return print_file(schemas, sorted(converter.imports))


@attrs.define
class Result:
    """What converting one node gives: a schema (``is_schema``) and the attribute
    that holds it, with the checks that apply to that attribute."""

    name: str
    is_schema: bool = False
    description: str = ""
    schema_name: str = ""
    properties: list[GenProperty] = attrs.field(factory=list)
    validations: list[Validation] = attrs.field(factory=list)
    has_index_signature: bool = False
    index_signature: IndexSignature = attrs.field(factory=IndexSignature)
    prop: GenProperty = attrs.field(factory=GenProperty)

    def schema(self) -> GenSchema:
        return GenSchema(
            self.schema_name,
            self.description,
            self.properties,
            self.validations,
            self.has_index_signature,
            self.index_signature,
        )


@attrs.define
class _State:
    """The walk of one node: the types gathered and the flags set so far."""

    types: list[KclType] = attrs.field(factory=list)
    required: set[str] = attrs.field(factory=set)
    is_array: bool = False
    is_null: bool = False
    has_type: bool = False
    reference: str = ""


class Converter:
    """Walks a document's nodes; ``results`` are the nested schemas by name."""

    def __init__(self, root: Node, source: SourceFile) -> None:
        self.root = root
        self.source = source
        self.results: dict[str, Result] = {}
        self.imports: set[str] = set()
        self.paths: list[str] = []
        self.path_nodes: list[Node] = []
        self.steps = 0
        self.comparison = _Comparison()

    def convert(self, node: Node, name: str) -> Result:
        self.steps += 1
        if self.steps > MAX_STEPS:  # each $ref is expanded again: a document can explode
            message = f"the JSON Schema expands into more than {MAX_STEPS:,} schemas"
            raise failure_at(self.source, message, node.path)
        if node.kind != "object":
            return Result(name, prop=GenProperty(type=ANY))
        identifier = node.keywords.get("$id")
        if isinstance(identifier, str):
            name = identifier.rsplit("/", 1)[-1].replace(".json", "")
        name = name or "AnonymousType"
        result = Result(name)
        if any(self.comparison.same(node, seen) for seen in self.path_nodes):
            result.prop = GenProperty(name=name, type=ANY)
            return result
        self.paths.append(name)
        self.path_nodes.append(node)
        try:
            state = _State()
            index = 0
            while index < len(node.ordered):
                self._keyword(node, index, name, result, state)
                index += 1
            self._finish(result, state)
        finally:
            self.paths.pop()
            self.path_nodes.pop()
        return result

    def _keyword(self, node: Node, index: int, name: str, result: Result, state: _State) -> None:
        keyword = node.ordered[index]
        value = node.keywords[keyword]
        handler = _HANDLERS.get(keyword)
        if handler is not None:
            handler(self, value, name, result, state)
        elif keyword in ("$ref", "allOf"):
            merge = self._merge_ref if keyword == "$ref" else self._merge_all_of
            merge(node, value, name, result, state)
            remaining = sorted(node.ordered[index + 1 :], key=keyword_order)
            node.ordered[index + 1 :] = remaining
        elif keyword in _NUMERIC or keyword in _COLLECTION:
            check = own_check(keyword, value)
            if check is not None:
                result.validations.append(check)

    # -- the keywords -------------------------------------------------------

    def _description(self, value: Any, name: str, result: Result, state: _State) -> None:
        result.description = value

    def _type(self, value: Any, name: str, result: Result, state: _State) -> None:
        state.has_type = True
        if len(value) == 1:
            if value[0] == "object":
                result.is_schema = True
                return
            if value[0] == "array":
                state.is_array = True
                return
            if value[0] == "null":
                state.is_null = True
        state.types.append(_json_types(value))

    def _items(self, value: Items, name: str, result: Result, state: _State) -> None:
        if not value.single:
            return  # the reference leaves tuples untyped
        for index, schema in enumerate(value.schemas):
            item = self.convert(schema, f"items{index}")
            state.types.append(self._typed(item))

    def _typed(self, item: Result) -> KclType:
        """The type an item, a choice... contributes; a schema is remembered."""
        if item.is_schema:
            self.results[item.schema_name] = item
            return CustomType(item.schema_name)
        return item.prop.type or ANY

    def _required(self, value: list[str], name: str, result: Result, state: _State) -> None:
        state.required.update(value)

    def _properties(self, value: Any, name: str, result: Result, state: _State) -> None:
        result.is_schema = True
        for key, schema in value:
            child = self.convert(schema, key)
            child.prop.required = key in state.required
            if child.is_schema:
                self.results[child.schema_name] = child
            result.properties.append(attrs.evolve(child.prop))
            if not child.is_schema:
                for check in child.validations:
                    named = attrs.evolve(check, name=child.prop.name, required=child.prop.required)
                    result.validations.append(named)

    def _pattern_properties(self, value: Any, name: str, result: Result, state: _State) -> None:
        result.is_schema = True
        convertible = not result.has_index_signature and len(value) == 1
        result.has_index_signature = True
        result.index_signature = IndexSignature(type=ANY)
        for index, (pattern, schema) in enumerate(value):
            child = self.convert(schema, f"patternProperties{index}")
            if child.is_schema:
                self.results[child.schema_name] = child
            if convertible:
                check = Validation(name="key", required=True, regex=pattern)
                result.index_signature = IndexSignature("key", child.prop.type or ANY, [check])
                self.imports.add("regex")

    def _additional(self, value: Node, name: str, result: Result, state: _State) -> None:
        if value.kind == "object":
            child = self.convert(value, "additionalProperties")
            if child.is_schema:
                self.results[child.schema_name] = child
            result.has_index_signature = True
            result.index_signature = IndexSignature(type=child.prop.type or ANY)
        elif value.kind == "true":
            result.has_index_signature = True
            result.index_signature = IndexSignature(type=ANY)

    def _property_names(self, value: Node, name: str, result: Result, state: _State) -> None:
        alias = result.index_signature.alias
        if not result.has_index_signature or not alias:
            return
        for keyword in value.ordered:
            check = own_check(keyword, value.keywords[keyword])
            if check is None:
                continue
            check.name, check.required = alias, True
            if check.regex is not None:
                self.imports.add("regex")
            if check.multiply_of is not None or check.unique:
                result.validations.append(check)
            else:
                result.index_signature.validations.append(check)

    def _default(self, value: Any, name: str, result: Result, state: _State) -> None:
        result.prop.has_default = True
        result.prop.default = value

    def _enum(self, value: list[Any], name: str, result: Result, state: _State) -> None:
        state.types = [ValueType(item) for item in value]

    def _const(self, value: Any, name: str, result: Result, state: _State) -> None:
        state.types = [ValueType(value)]
        result.prop.has_default = True
        result.prop.default = value
        if state.has_type:
            check = Validation(name=name, required=name in state.required, const=value)
            result.validations.append(check)

    def _pattern(self, value: str, name: str, result: Result, state: _State) -> None:
        result.validations.append(Validation(regex=value))
        self.imports.add("regex")

    def _one_of(self, value: list[Node], name: str, result: Result, state: _State) -> None:
        for index, schema in enumerate(value):
            item = self.convert(schema, f"oneOf{index}")
            if item.is_schema or not item.prop.is_null:
                state.types.append(self._typed(item))

    def _any_of(self, value: list[Node], name: str, result: Result, state: _State) -> None:
        """Record what an ``anyOf`` gives on ``result`` and ``state`` (``value``: its choices)."""
        choices = value
        required = name in state.required
        fields = required_fields(choices)
        if fields:
            result.validations.append(Validation(any_of_fields=fields))
            return
        checks: list[Validation] = []
        only_checks = True
        for index, choice in enumerate(choices):
            pattern = pattern_only(choice)
            if pattern is not None:
                checks.append(Validation(name=name, regex=pattern))
                self.imports.add("regex")
                continue
            item = self.convert(choice, f"anyOf{index}")
            if item.is_schema:
                only_checks = False
                self.results[item.schema_name] = item
                state.types.append(CustomType(item.schema_name))
            elif not item.prop.is_null:
                kind = item.prop.type
                if item.validations and kind == ANY:
                    for check in item.validations:
                        check.name, check.required = name, required
                        checks.append(check)
                else:
                    only_checks = only_checks and is_value(kind)
                    if kind is not None:
                        state.types.append(kind)
        if only_checks and checks:
            result.validations.append(Validation(name=name, required=required, any_of=checks))

    def _not(self, value: Node, name: str, result: Result, state: _State) -> None:
        check = negated(value, name, name in state.required)
        if check is not None:
            if check.negated is not None and check.negated.regex is not None:
                self.imports.add("regex")
            result.validations.append(check)

    def _format(self, value: str, name: str, result: Result, state: _State) -> None:
        if len(self.paths) >= 2:
            check_name, required = self.paths[-1], result.prop.required
        else:
            check_name, required = result.name, True
        check = format_check(value, check_name, required)
        if check is not None:
            result.validations.append(check)
            self.imports.add("regex")

    # -- $ref and allOf -----------------------------------------------------

    def _merge_ref(self, node: Node, ref: str, name: str, result: Result, state: _State) -> None:
        target = resolve(self.root, ref, self.source, [*node.path, "$ref"])
        if target is None or target.kind != "object":
            return
        targets = [target]
        for schema in targets:  # grows with the targets' own $ref
            for key in schema.ordered:
                if key not in node.keywords:
                    node.ordered.append(key)
                    node.keywords[key] = schema.keywords[key]
                elif key == "$ref":
                    further = resolve(
                        self.root, schema.keywords[key], self.source, [*schema.path, "$ref"]
                    )
                    if further is not None and further.kind == "object":
                        _add_new(targets, further)
                else:
                    _merge_keyword(node, key, schema.keywords[key], theirs_first=True)
        state.reference = ref

    def _merge_all_of(
        self, node: Node, parts: list[Node], name: str, result: Result, state: _State
    ) -> None:
        required = name in state.required
        schemas = list(parts)
        checks: list[Validation] = []
        for schema in schemas:  # grows with the parts' $ref targets
            for key in schema.ordered:
                value = schema.keywords[key]
                if key == "$ref":
                    target = resolve(self.root, value, self.source, [*schema.path, "$ref"])
                    if target is not None and target.kind == "object":
                        _add_new(schemas, target)
                    continue
                found = all_of_checks(key, value, name, required)
                if found is not None:
                    own, check = found
                    if check is not None:
                        self.imports.update(["regex"] if check.regex is not None else [])
                        (result.validations if own else checks).append(check)
                elif key not in node.keywords:
                    node.ordered.append(key)
                    node.keywords[key] = value
                else:
                    _merge_keyword(node, key, value, theirs_first=False)
        if checks:
            result.validations.append(Validation(all_of=checks))

    # -- the end ------------------------------------------------------------

    def _finish(self, result: Result, state: _State) -> None:
        if result.is_schema:
            last = state.reference.rsplit("/", 1)[-1].replace(".json", "")
            if to_camel(last):
                result.schema_name = to_camel(last)
            else:  # no $ref, or one without a name (`#`: the reference names it "")
                result.schema_name = "".join(to_camel(part) for part in self.paths)
            state.types.append(CustomType(result.schema_name))
            if not result.properties and not result.has_index_signature:
                result.has_index_signature = True
                result.index_signature = IndexSignature(type=ANY)
        if state.types:
            union = UnionType(tuple(state.types))
            result.prop.type = ArrayType(union) if state.is_array else union
        else:
            result.prop.type = ANY
        result.prop.is_null = state.is_null
        if result.has_index_signature and result.index_signature.validations:
            result.validations.extend(result.index_signature.validations)
        for check in result.validations:
            for part in check.all_of:
                part.name, part.required = check.name, check.required
        result.prop.name = result.name
        result.prop.description = result.description


def _add_new(nodes: list[Node], node: Node) -> None:
    """Add ``node`` unless it is there (the reference loops forever on a ``$ref``
    cycle)."""
    if not any(node is known for known in nodes):
        nodes.append(node)


def _merge_keyword(node: Node, key: str, theirs: Any, *, theirs_first: bool) -> None:
    """Merge a ``$ref`` target's or an ``allOf`` part's keyword into ``node``'s own."""
    ours = node.keywords[key]
    if key == "properties":
        merged = list(ours)
        for name, schema in theirs:
            at = next((i for i, (key_, _) in enumerate(merged) if key_ == name), None)
            if at is None:
                merged.append((name, schema))
            elif not merged[at][1].keywords:  # an empty placeholder takes the specific one
                merged[at] = (name, schema)
        node.keywords[key] = merged
    elif key == "required":
        node.keywords[key] = [*theirs, *ours] if theirs_first else [*ours, *theirs]
    elif key == "items" and isinstance(ours, Items) and isinstance(theirs, Items):
        node.keywords[key] = Items(ours.single, [*theirs.schemas, *ours.schemas])


def _json_types(kinds: list[str]) -> KclType:
    types = [_json_type(kind) for kind in kinds if kind != "null"]
    return UnionType(tuple(types)) if types else ANY


def _json_type(kind: str) -> KclType:
    if kind == "array":
        return ArrayType(ANY)
    return Primitive(_KCL_TYPES.get(kind, "any"))


class _Comparison:
    """Deep equality of nodes (the reference's ``reflect.DeepEqual`` of a node and
    its ancestors), within a budget of values visited over the whole document: a
    deep chain of nodes compares each with every ancestor, and past the budget
    only the same node counts as a repetition."""

    def __init__(self, budget: int = COMPARE_BUDGET) -> None:
        self.budget = budget

    def same(self, node: Node, other: Node) -> bool:
        if node is other:
            return True
        if self.budget <= 0:
            return False
        try:
            return self._equal(node, other)
        except (RecursionError, _OverBudget):
            return False

    def _equal(self, left: Any, right: Any) -> bool:
        self.budget -= 1
        if self.budget < 0:
            raise _OverBudget
        if left is right:
            return True
        if isinstance(left, Node) and isinstance(right, Node):
            return left.kind == right.kind and self._equal(left.keywords, right.keywords)
        if isinstance(left, Items) and isinstance(right, Items):
            return left.single == right.single and self._equal(left.schemas, right.schemas)
        if isinstance(left, dict) and isinstance(right, dict):
            return left.keys() == right.keys() and all(self._equal(left[k], right[k]) for k in left)
        if isinstance(left, list | tuple) and isinstance(right, list | tuple):
            return len(left) == len(right) and all(map(self._equal, left, right))
        return type(left) is type(right) and bool(left == right)


class _OverBudget(Exception):
    pass


_WORD_BREAKS = "_ -."


def to_camel(text: str) -> str:
    """A name in CamelCase as the reference's ``strcase.ToCamel`` (v0.3) writes it:
    separators dropped, the letter after one or after a digit capitalised."""
    text = text.strip()
    capital_next, previous_capital = True, False
    out: list[str] = []
    for index, char in enumerate(text.encode()):
        letter = chr(char)
        is_capital, is_lower = "A" <= letter <= "Z", "a" <= letter <= "z"
        if capital_next:
            letter = letter.upper() if is_lower else letter
        elif index == 0:
            letter = letter.lower() if is_capital else letter
        elif previous_capital and is_capital:
            letter = letter.lower()
        previous_capital = is_capital
        if is_capital or is_lower:
            out.append(letter)
            capital_next = False
        elif "0" <= letter <= "9":
            out.append(letter)
            capital_next = True
        else:
            capital_next = letter in _WORD_BREAKS
    return "".join(out)


_NUMERIC = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}
_NUMERIC |= {"minLength", "maxLength", "multipleOf"}
_COLLECTION = {"uniqueItems", "minItems", "maxItems"}
_HANDLERS = {
    "description": Converter._description,
    "type": Converter._type,
    "items": Converter._items,
    "required": Converter._required,
    "properties": Converter._properties,
    "patternProperties": Converter._pattern_properties,
    "additionalProperties": Converter._additional,
    "propertyNames": Converter._property_names,
    "default": Converter._default,
    "enum": Converter._enum,
    "const": Converter._const,
    "pattern": Converter._pattern,
    "oneOf": Converter._one_of,
    "anyOf": Converter._any_of,
    "not": Converter._not,
    "format": Converter._format,
}
