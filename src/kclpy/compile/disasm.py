"""A readable listing of bytecode: offset, line, mnemonic, operand (the codegen golden format)."""

from __future__ import annotations

from typing import Any

from kclpy.compile.code import Code, FunctionProto, PackageCode, SchemaProto
from kclpy.compile.opcodes import OPERAND, OPERATORS, Op
from kclpy.source import SourceFile


def _operand(code: Code, op: Op, arg: int) -> str:
    kind = OPERAND.get(op)
    if kind is None:
        return ""
    if op == Op.SET_PATH:
        return f"{arg & 0xFFFF} ({_short(code.consts[arg & 0xFFFF])}) indices={arg >> 16}"
    if kind == "const":
        value = code.consts[arg] if arg < len(code.consts) else "?"
        return f"{arg} ({_short(value)})"
    if kind == "name":
        return f"{arg} ({code.names[arg]})" if arg < len(code.names) else str(arg)
    if kind == "operator":
        return f"{OPERATORS[arg]}"
    if kind == "target+local":
        return f"{arg & 0xFFFFFFFF} local={arg >> 32}"
    if kind == "deref":
        return f"depth={arg >> 16} local={arg & 0xFFFF}"
    if kind == "function":
        return f"{_short(code.consts[arg & 0xFFFF])} defaults={arg >> 16}"
    if kind == "call":
        keywords = arg >> 16
        names = code.consts[keywords - 1] if keywords else ()
        return f"argc={arg & 0xFFFF}" + (f" kw={','.join(names)}" if names else "")
    return str(arg)


def _short(value: Any) -> str:
    if isinstance(value, FunctionProto):
        return f"<lambda {len(value.params)} params>"
    if isinstance(value, SchemaProto):
        return f"<{value.kind} {value.name}>"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def disassemble(code: Code, file: SourceFile | None = None) -> str:
    """One line per instruction; with ``file``, each line shows the source line number."""
    lines = [f"code {code.name}"]
    ops = code.ops
    for pc in range(0, len(ops), 2):
        op = Op(ops[pc])
        arg = ops[pc + 1]
        line = ""
        if file is not None:
            start, _ = code.positions[pc // 2]
            line = str(file.pos(start).line)
        operand = _operand(code, op, arg)
        lines.append(f"{pc:5d} {line:>4} {op.name:<24} {operand}".rstrip())
    return "\n".join(lines)


def disassemble_package(package: PackageCode, files: dict[str, SourceFile]) -> str:
    """Every code of a package: setters by variable, then the bodies, then schemas."""
    parts: list[str] = []
    seen: set[int] = set()

    def add(code: Code) -> None:
        if id(code) in seen:
            return
        seen.add(id(code))
        parts.append(disassemble(code, files.get(code.path)))
        for const in code.consts:
            if isinstance(const, FunctionProto):
                add(const.code)
            elif isinstance(const, SchemaProto):
                add_schema(const)

    def add_schema(proto: SchemaProto) -> None:
        setters = [*proto.setters.values(), *proto.path_setters.values()]
        for inner in [*setters, proto.body, proto.checks]:
            if inner is not None:
                add(inner)

    for slot, codes in enumerate(package.setters):
        constant = package.constants.get(slot, codes)
        parts.append(
            f"# {package.slot_names[slot]}" + ("" if constant is codes else f" = {constant!r}")
        )
        if isinstance(constant, SchemaProto):
            add_schema(constant)
        for code in codes:
            add(code)
    for code in package.body:
        add(code)
    return "\n\n".join(parts) + "\n"
