"""Schema instantiation: attributes computed lazily from defaults, body and config.

The value of an attribute is the fold of its setters along the schema chain (base
schemas first, then the schema itself, then its mixins), combined with the config
entry for it: ``=`` replaces, ``:`` unions (scalars are overwritten, dicts merge,
lists merge by index), ``+=`` appends. It is then checked against the declared
type (a dict becomes a schema instance). After every attribute is known, the
checks of the chain run, base first.
"""

from __future__ import annotations

from itertools import repeat

from kclpy.compile.code import Code, NameRef, SchemaProto, TypeRef
from kclpy.values import OP_INSERT, OP_OVERRIDE, OP_UNION, UNDEFINED, Config, SchemaInstance, Value
from kclpy.values.errors import CheckFailure, KclRuntimeError, Location
from kclpy.vm import merge
from kclpy.vm.builtins.convert import to_str
from kclpy.vm.objects import (
    CONTAINERS,
    DONE,
    IN_PROGRESS,
    Frame,
    ModuleValue,
    PackageState,
    SchemaPlan,
    SchemaState,
    SchemaType,
    Scope,
    Setter,
    Signature,
)
from kclpy.vm.runtime import Runtime
from kclpy.vm.typecheck import TypeChecker, value_type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Evaluator(Protocol):
        """What the schema builder needs of the interpreter: running code and names."""

        def execute(
            self, code: Code, scope: Scope, package: PackageState, frame: Frame | None
        ) -> Value: ...

        def force_global(self, package: PackageState, slot: int, frame: Frame | None) -> Value: ...

        def import_module(self, pkgpath: str, frame: Frame | None) -> ModuleValue: ...

        def module_member(self, module: ModuleValue, name: str, frame: Frame | None) -> Value: ...


class SchemaBuilder:
    """Instantiates schemas for one run: resolution of schema chains, lazy attributes,
    checks and required attributes, with the run's type checker."""

    def __init__(self, runtime: Runtime, evaluator: Evaluator) -> None:
        self.runtime = runtime
        self.evaluator = evaluator
        self.execute = evaluator.execute  # (one lookup on the hot path)
        self.types = TypeChecker(self.resolve_type, self.coerce, self.is_subschema)
        self.rebuilders: dict[PackageState | None, merge.Rebuild] = {}

    # ------------------------------------------------------------------ references

    def resolve_ref(self, ref: NameRef, package: PackageState, frame: Frame | None) -> Value:
        """The value a compile-time name reference denotes (usually a schema type)."""
        anchor = frame or Frame(Code("<ref>", ""), package.scope, package, None)
        if ref.pkgpath:
            module = self.evaluator.import_module(ref.pkgpath, anchor)
            value: Value = module
            for part in ref.member.split("."):
                value = (
                    self.evaluator.module_member(value, part, anchor)
                    if isinstance(value, ModuleValue)
                    else getattr(value, part, UNDEFINED)
                )
            return value
        if ref.slot >= 0:
            return self.evaluator.force_global(package, ref.slot, anchor)
        raise KclRuntimeError(f"name '{ref.name}' is not defined")

    def resolve_schema(self, ref: NameRef, package: PackageState) -> SchemaType:
        value = self.resolve_ref(ref, package, None)
        if not isinstance(value, SchemaType):
            raise KclRuntimeError(f"'{ref.name}' is not a schema")
        return value

    def resolve_type(self, ref: NameRef, package: PackageState) -> SchemaType:
        """The schema a type names in ``package``, its parents resolved (union
        selection reads the inherited attributes)."""
        schema = self.resolve_schema(ref, package)
        self.prepare(schema)
        return schema

    def prepare(self, schema: SchemaType) -> None:
        """Resolve a schema's parent and mixins (once)."""
        if schema.resolved:
            return
        proto = self.whole(schema)
        schema.resolved = True
        if proto.parent is not None:
            parent = self.resolve_schema(proto.parent, schema.package)
            kind = parent.header.kind
            if kind == "mixin" or (kind == "protocol" and proto.kind != "rule"):
                raise KclRuntimeError(
                    f"invalid schema inherit object type, expect schema, got '{kind}'",
                    "IllegalInheritError",
                )
            self.prepare(parent)
            schema.parent_type = parent
            self.check_inherit_cycle(schema)
        schema.mixin_types = [self.resolve_schema(ref, schema.package) for ref in proto.mixins]
        for mixin in schema.mixin_types:
            self.prepare(mixin)

    def whole(self, schema: SchemaType) -> SchemaProto:
        """The schema's whole proto: its code's, else (the code held its header only)
        the one the run's code source compiles, once per schema."""
        header = schema.header
        if isinstance(header, SchemaProto):
            return header
        try:
            proto = self.runtime.code_source.schema(header)
        except LookupError as error:
            raise KclRuntimeError(str(error)) from None
        schema.proto = schema.header = proto
        return proto

    def check_inherit_cycle(self, schema: SchemaType) -> None:
        seen: list[SchemaType] = []
        current: SchemaType | None = schema
        while current is not None:
            if current in seen:
                names = ", ".join(sorted(member.name for member in seen))
                raise KclRuntimeError(
                    f"There is a circular reference between schemas {names}", "CompileError"
                )
            seen.append(current)
            current = current.parent_type

    def chain(self, schema: SchemaType) -> list[SchemaType]:
        """Base schemas first, each followed by its mixins, down to the schema itself."""
        self.prepare(schema)
        lineage: list[SchemaType] = []
        current: SchemaType | None = schema
        while current is not None:
            lineage.append(current)
            current = current.parent_type
        lineage.reverse()
        order: list[SchemaType] = []
        for member in lineage:
            order.append(member)
            order.extend(member.mixin_types)
        return order

    def plan(self, schema: SchemaType) -> SchemaPlan:
        """What the schema's instances share (its chain resolved first; cached)."""
        plan = schema.plan
        if plan is None:
            plan = schema.plan = SchemaPlan(schema, self.chain(schema))
        return plan

    def run_setters(self, state: SchemaState, setters: list[Setter], frame: Frame | None) -> None:
        for member, setter, constant in setters:
            if constant is not None:
                stored, literal = constant  # `name = <literal>`: no code to run
                state.values[stored] = literal
                continue
            scope = self.scope_for(state, member)
            self.execute(setter, scope, member.package, frame)

    def is_subschema(self, schema: SchemaType, base: SchemaType) -> bool:
        current: SchemaType | None = schema
        while current is not None:
            if current is base or current.proto is base.proto:
                return True
            # one file loaded both as a module and as part of its folder's package
            if current.header.name == base.header.name and current.header.path == base.header.path:
                return True
            current = current.parent_type
        return False

    # ------------------------------------------------------------------ instantiation

    def has_attribute(self, state: SchemaState, name: str) -> bool:
        if name in state.values or name in state.plan.table:
            return True
        return name in state.config and state.plan.signature is not None

    def coerce(self, schema: SchemaType, value: dict[str, Value], site: PackageState) -> Value:
        """A dict converted into an instance of ``schema`` by a type check in ``site``."""
        return self.instantiate(schema, value, [], {}, None, site)

    def schema_new(
        self,
        target: Value,
        args: list[Value],
        kwargs: dict[str, Value],
        config: Config,
        frame: Frame,
    ) -> Value:
        if isinstance(target, SchemaType):
            return self.instantiate(target, config, args, kwargs, frame)
        if isinstance(target, SchemaInstance):
            return self.rebuild(target, config, frame.package)
        if isinstance(target, dict):
            return merge.union_dicts(target, config, [], self.rebuild_in(frame.package))
        raise KclRuntimeError(f"'{value_type_name(target)}' object is not callable")

    def rebuild_in(self, site: PackageState | None) -> merge.Rebuild:
        """:meth:`rebuild` for the merges of code running in ``site`` (made once)."""
        found = self.rebuilders.get(site)
        if found is None:

            def rebuild(instance: SchemaInstance, delta: dict[str, Value]) -> Value:
                return self.rebuild(instance, delta, site)

            found = self.rebuilders[site] = rebuild
        return found

    def rebuild(
        self, instance: SchemaInstance, delta: dict[str, Value], site: PackageState | None
    ) -> Value:
        """``instance | delta``: the schema built again from its config unified with
        delta, by code running in ``site``."""
        schema = instance.schema
        assert isinstance(schema, SchemaType)
        base = instance.config
        if base is None:
            base = Config()
            for key, value in instance.items():
                base[key] = value
                base.ops[key] = OP_OVERRIDE
        args, kwargs = instance.arguments
        if isinstance(delta, SchemaInstance):
            if delta.arguments[0] or delta.arguments[1]:
                args, kwargs = delta.arguments
            if delta.config is not None:
                delta = delta.config
        merged = merge.union_dicts(base, delta, [], self.rebuild_in(site))
        return self.instantiate(schema, merged, list(args), dict(kwargs), None, site)

    def instantiate(
        self,
        schema: SchemaType,
        config: dict[str, Value],
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame | None,
        site: PackageState | None = None,
    ) -> Value:
        """A new instance of ``schema`` (a rule gives an empty config when it holds),
        made by code running in ``site`` (the frame's package when there is a frame)."""
        proto = schema.header
        if not isinstance(proto, SchemaProto):
            proto = self.whole(schema)
        if proto.kind == "rule" and proto.parent is None:
            return self.run_rule(schema, config, args, kwargs, frame)
        for name, arguments in proto.decorators:
            if name == "deprecated":
                self.deprecated(proto.name, arguments)
        plan = schema.plan or self.plan(schema)
        state = SchemaState(schema, config, plan)
        state.scopes = {
            member: self.member_scope(member, state, args, kwargs) for member in plan.chain
        }
        extra = [key for key in config if key not in plan.table]
        if extra and plan.signature is None:
            raise KclRuntimeError(
                f"Cannot add member '{extra[0]}' to schema '{schema.name}'", "CompileError"
            )
        self.evaluate(state, extra, frame)
        instance = new_instance(state, extra, args, kwargs)
        if proto.kind == "rule":  # `rule R for P {...}` is worth its (checked) config
            return Config(instance)
        if frame is not None:
            site = frame.package
        pkgpath = site.code.pkgpath if site is not None else ""
        for member in plan.lineage:
            member.instances.append((instance, pkgpath))
        return instance

    def evaluate(self, state: SchemaState, extra: list[str], frame: Frame | None) -> None:
        """Run the bodies of the chain, compute every attribute and the ``extra`` config
        keys (those only the index signature declares; put in output order here), then
        run the checks, base first."""
        config, scopes, plan = state.config, state.scopes, state.plan
        execute = self.execute
        for member, body in plan.bodies:
            execute(body, scopes[member], member.package, frame)
        force_attr = self.force_attr
        for name in plan.table:
            force_attr(state, name, frame)
        table = plan.table
        signature = plan.signature
        if len(extra) > 1 and signature is not None and signature[0].key_name:
            # the reference puts the last extra key first when the key is named
            extra.insert(0, extra.pop())
        for key in extra:
            self.force_extra(state, key, signature, frame)
        if extra and signature is not None and signature[0].key_slot >= 0:
            # checks see the key alias as the config's last extra key
            last = next(key for key in reversed(config) if key not in table)
            self.scope_for(state, signature[1]).values[signature[0].key_slot] = last
        for member, checks in plan.checks:
            try:
                execute(checks, scopes[member], member.package, frame)
            except CheckFailure as failure:
                raise failure.at_instance() from None

    def member_scope(
        self, member: SchemaType, state: SchemaState, args: list[Value], kwargs: dict[str, Value]
    ) -> Scope:
        scope = Scope(member.proto.nlocals, None, state)
        params = member.proto.params
        if not params:
            return scope
        if len(args) > len(params):
            raise KclRuntimeError(
                f'"{member.name}" takes {len(params)} positional argument'
                f"{'s' if len(params) != 1 else ''} but {len(args)} were given"
            )
        for index, param in enumerate(params):
            if index < len(args):
                value = args[index]
            elif param.name in kwargs:
                value = kwargs[param.name]
            elif param.has_default:
                value = UNDEFINED
            else:
                raise KclRuntimeError(
                    f"expected {len(params)} positional argument"
                    f"{'s' if len(params) != 1 else ''}, found {len(args)}"
                )
            scope.values[index] = self.types.check(value, param.type, member.package)
            if isinstance(scope.values[index], dict | list):
                self.require(scope.values[index])
        defaults = member.proto.param_defaults
        if defaults is not None:
            self.execute(defaults, scope, member.package, None)
        return scope

    def force_attr(self, state: SchemaState, name: str, frame: Frame | None) -> Value:
        """The value of attribute ``name`` of the instance being built, computed the
        first time: its setters (unless the config overrides it), the config entry,
        the setters into its value, its deprecation, type check and required check."""
        states = state.states
        status = states.get(name)
        if status == DONE:
            return state.values[name]
        if status == IN_PROGRESS:
            return state.values.get(name, UNDEFINED)
        plan = state.plan
        attr = plan.attrs.get(name) or plan.bare
        config = state.config
        in_config = name in config
        if not in_config and not attr.whole and not attr.into:
            value = state.values.get(name, UNDEFINED)
            if value is None or value is UNDEFINED:  # nothing sets it: nothing to check
                state.values[name] = value
                states[name] = DONE
                return value
        states[name] = IN_PROGRESS
        op = state.ops.get(name, OP_UNION) if in_config else OP_UNION
        overridden = in_config and op == OP_OVERRIDE
        site = state.schema.package  # where merges of the attribute's values run
        try:
            if overridden:
                value = config[name]
            else:
                if attr.whole:
                    self.run_setters(state, attr.whole, frame)
                value = state.values.get(name, UNDEFINED)
                if in_config:
                    value = self.combine(value, config[name], op, name, site)
            if attr.into and not overridden:
                # `name.b = v` in a body assigns into the value the config was merged
                # into, and the config is merged again on top (it wins), as the
                # reference merges it after every assignment
                state.values[name] = value
                self.run_setters(state, attr.into, frame)
                value = state.values.get(name, UNDEFINED)
                if in_config and op == OP_UNION:
                    value = self.combine(value, config[name], op, name, site)
            if attr.deprecations and in_config:
                for arguments in attr.deprecations:
                    self.deprecated(name, arguments)
            check_type = attr.check_type
            if (
                check_type is not None
                and type(value) not in attr.passes
                and not attr.passes_literal(value)
            ):
                # the declaring schema's package: a parent from another package names
                # its attribute types in its own scope
                value = self.check_attr_type(value, check_type, attr.owner)
            if attr.spec is not None and isinstance(value, CONTAINERS):
                self.require(value, attr.where)
        except BaseException:
            states[name] = 0
            raise
        state.values[name] = value
        states[name] = DONE
        return value

    def scope_for(self, state: SchemaState, member: SchemaType) -> Scope:
        scope = state.scopes.get(member)
        if scope is None:
            scope = Scope(member.proto.nlocals, None, state)
            state.scopes[member] = scope
        return scope

    def force_extra(
        self, state: SchemaState, key: str, signature: Signature | None, frame: Frame | None
    ) -> None:
        """An attribute that only the index signature declares."""
        value = state.config[key]
        if signature is not None:
            spec, member = signature
            scope = self.scope_for(state, member)
            if spec.key_slot >= 0:  # `[name: str]: T`: checks see the last key as `name`
                scope.values[spec.key_slot] = key
            if spec.default is not None:
                default = self.execute(spec.default, scope, member.package, frame)
                op = state.ops.get(key, OP_UNION)
                value = self.combine(default, value, op, key, member.package)
            if spec.value_type is not None:
                value = self.check_attr_type(value, spec.value_type, member.package)
        state.values[key] = value
        state.states[key] = DONE

    def combine(
        self, default: Value, value: Value, op: int, name: str, site: PackageState
    ) -> Value:
        """A config entry against the value the schema body computed (merged as code
        running in ``site``)."""
        if op == OP_OVERRIDE:
            return value
        if op == OP_INSERT:
            return merge.insert(default, value)
        if value is None or value is UNDEFINED:
            return default if default is not UNDEFINED else value
        if default is UNDEFINED or default is None:
            return value
        if isinstance(default, dict) and isinstance(value, dict):
            if isinstance(default, SchemaInstance):
                return self.rebuild(default, value, site)
            return merge.union_dicts(default, value, [name], self.rebuild_in(site))
        if isinstance(default, list) and isinstance(value, list):
            merged = [
                self.combine(old, new, OP_UNION, name, site) if isinstance(old, dict) else new
                for old, new in zip(default, value, strict=False)
            ]
            return merged + default[len(merged) :] + value[len(merged) :]
        return value

    def check_attr_type(self, value: Value, type_ref: TypeRef, package: PackageState) -> Value:
        """``value`` checked against an attribute's type, whose names resolve in ``package``."""
        try:
            return self.types.check(value, type_ref, package)
        except CheckFailure:
            raise
        except KclRuntimeError as error:
            if error.message.startswith("expect "):
                raise KclRuntimeError(error.message) from None
            raise

    def require(self, value: Value, where: Location | None = None) -> None:
        """Check the required attributes of every schema instance in a final value.

        As in the reference, an instance is not checked where it is created (a default
        like ``m: M = M {}`` may still be completed by a config), but once it is the
        final value of an attribute or a variable.
        """
        if isinstance(value, SchemaInstance):
            if value.required_checked:
                return
            value.required_checked = True
            schema = value.schema
            assert isinstance(schema, SchemaType)
            required = (schema.plan or self.plan(schema)).required
            found = list(map(value.get, required))  # (None when absent)
            if None in found or UNDEFINED in found:
                name = next(
                    name
                    for name, item in zip(required, found, strict=True)
                    if item is None or item is UNDEFINED
                )
                error = KclRuntimeError(
                    f"attribute '{name}' of {schema.name} is required and can't be None "
                    "or Undefined"
                )
                error.location = where
                raise error
            for item in value.values():
                if isinstance(item, CONTAINERS):
                    self.require(item, where)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, CONTAINERS):
                    self.require(item, where)
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, CONTAINERS):
                    self.require(item, where)

    def run_rule(
        self,
        schema: SchemaType,
        config: dict[str, Value],
        args: list[Value],
        kwargs: dict[str, Value],
        frame: Frame | None,
    ) -> Value:
        state = SchemaState(schema, config, self.plan(schema))
        for member in [*schema.mixin_types, schema]:
            scope = self.member_scope(member, state, args, kwargs)
            checks = member.proto.checks
            if checks is not None:
                self.execute(checks, scope, member.package, frame)
        return Config(config)

    def schema_instances(self, schema: SchemaType, full_pkg: bool = False) -> list[Value]:
        """``S.instances()``: instances of S and its subschemas made in the main package
        (or anywhere with ``full_pkg``), in creation order."""
        main = self.runtime.main_package.pkgpath if self.runtime.main_package else ""
        return [instance for instance, site in schema.instances if full_pkg or site == main]

    def deprecated(self, name: str, arguments: dict[str, object]) -> None:
        version = arguments.get("version") or ""
        reason = arguments.get("reason") or ""
        message = f"{name} was deprecated "
        if version:
            message += f"since version {version}"
        if reason:
            message += f", {reason}"
        if arguments.get("strict", True) is False:
            self.runtime.warn(message)
            return
        raise KclRuntimeError(message, "Deprecated")


def new_instance(
    state: SchemaState, extra: list[str], args: list[Value], kwargs: dict[str, Value]
) -> SchemaInstance:
    """The instance of a computed state: attributes in output order, then extra keys;
    it remembers its config, operators and arguments for a later rebuild."""
    config = state.config
    instance = SchemaInstance(state.schema)
    instance.config = config
    if args or kwargs:
        instance.arguments = (list(args), dict(kwargs))
    if isinstance(config, Config | SchemaInstance) and config.ops:
        instance.ops.update(config.ops)
    get = state.values.get
    table = state.plan.table
    instance.update(zip(table, map(get, table, repeat(UNDEFINED)), strict=False))
    for key in extra:
        instance[key] = get(key, UNDEFINED)
    return instance


def check_failure(message: Value) -> CheckFailure:
    """The error of a failing ``check:`` condition with its optional message."""
    text = "Check failed on the condition"
    user = ""
    if message is not None and message is not UNDEFINED:
        user = to_str(message)
        text = f"{text}: {user}"
    return CheckFailure(text, user)
