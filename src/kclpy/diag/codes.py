"""The registry of diagnostic codes, reusing the reference's ids and kind names.

Kinds without a dedicated id in the reference print with its fallback id E1001,
as the reference does (``error[E1001]: ImmutableError``).
"""

from __future__ import annotations

from kclpy.enumeration import Enumeration


class Code(Enumeration):
    """A diagnostic kind: ``value`` is ``(id, kind name)``."""

    INVALID_SYNTAX = ("E1001", "InvalidSyntax")
    TAB_ERROR = ("E1002", "TabError")
    INDENTATION_ERROR = ("E1003", "IndentationError")
    ILLEGAL_ARGUMENT_SYNTAX = ("E1I37", "IllegalArgumentSyntax")
    IMMUTABLE_ERROR = ("E1001", "ImmutableError")
    NAME_ERROR = ("E1001", "NameError")
    INDEX_SIGNATURE_ERROR = ("E1001", "IndexSignatureError")
    ILLEGAL_PARAMETER_ERROR = ("E1001", "IllegalParameterError")
    RECURSIVE_LOAD = ("E1001", "RecursiveLoad")
    TYPE_ERROR = ("E2G22", "TypeError")
    CANNOT_FIND_MODULE = ("E2F04", "CannotFindModule")
    COMPILE_ERROR = ("E2L23", "CompileError")
    ILLEGAL_ATTRIBUTE_ERROR = ("E2A31", "IllegalAttributeError")
    UNIQUE_KEY_ERROR = ("E2L28", "UniqueKeyError")
    ILLEGAL_INHERIT_ERROR = ("E2D34", "IllegalInheritError")
    EVALUATION_ERROR = ("E3M38", "EvaluationError")
    RESOURCE_LIMIT_ERROR = ("E3R01", "ResourceLimitError")  # kclpy's --max-memory/--timeout
    COMPILER_WARNING = ("W1001", "CompilerWarning")
    UNUSED_IMPORT_WARNING = ("W1001", "UnusedImportWarning")
    REIMPORT_WARNING = ("W1001", "ReimportWarning")
    IMPORT_POSITION_WARNING = ("W1001", "ImportPositionWarning")
    DEPRECATED_WARNING = ("W1001", "DeprecatedWarning")
    INTERNAL_ERROR = ("E9999", "InternalError")
    IO_ERROR = ("E9001", "IOError")
    USAGE_ERROR = ("E9002", "UsageError")
    IMPORT_ERROR = ("E9010", "ImportError")  # `kcl import`: an input it cannot convert
    OUT_OF_MEMORY = ("E9003", "OutOfMemory")
    # Packages (kclpy.mod): kcl.mod, resolution, the package cache, registries and git.
    MOD_FILE_ERROR = ("E9101", "ModFileError")
    PACKAGE_NOT_FOUND = ("E9102", "PackageNotFound")
    VERSION_CONFLICT = ("E9103", "VersionConflict")
    REGISTRY_ERROR = ("E9104", "RegistryError")
    AUTHENTICATION_ERROR = ("E9105", "AuthenticationError")
    CHECKSUM_MISMATCH = ("E9106", "ChecksumMismatch")
    CORRUPT_ARCHIVE = ("E9107", "CorruptArchive")
    GIT_ERROR = ("E9108", "GitError")
    # Kusion (kclpy.kusion): the spec, preview/apply/destroy, the state backend.
    KUSION_ERROR = ("E9201", "KusionError")
    SPEC_ERROR = ("E9202", "SpecError")
    STATE_LOCKED = ("E9203", "StateLocked")
    RUNTIME_FAILURE = ("E9204", "RuntimeFailure")
    STATE_UNAVAILABLE = ("E9205", "StateUnavailable")
    LOCK_LOST = ("E9206", "LockLost")
    UNRESOLVED_REFERENCE = ("E9207", "UnresolvedReference")
    # The lint rules of ``kcl lint`` (kclpy.tools.lint): warnings, whatever their letter.
    LINT_IMPORT_POSITION = ("W0413", "ImportPosition")
    LINT_REIMPORT = ("W0404", "Reimport")
    LINT_UNUSED_IMPORT = ("W0411", "UnusedImport")
    LINT_SELF_IMPORT = ("E0406", "SelfImport")
    LINT_LINE_TOO_LONG = ("E0501", "LineTooLong")
    LINT_INVALID_NAME = ("C0103", "InvalidName")
    LINT_DISALLOWED_NAME = ("C0104", "DisallowedName")
    LINT_UNUSED_PRIVATE = ("W0612", "UnusedPrivateVariable")
    LINT_DEPRECATED_USE = ("W1505", "DeprecatedUse")

    @property
    def id(self) -> str:
        return self.value[0]

    @property
    def kind(self) -> str:
        return self.value[1]

    @property
    def is_warning(self) -> bool:
        return self.value[0].startswith("W") or self.is_lint

    @property
    def is_lint(self) -> bool:
        """A lint rule's code (reported by ``kcl lint`` only)."""
        return self.name.startswith("LINT_")


_BY_KIND = {code.kind: code for code in Code}


def code_for_kind(kind: str) -> Code:
    """The code of a kind name such as ``"EvaluationError"`` (EvaluationError if unknown)."""
    return _BY_KIND.get(kind, Code.EVALUATION_ERROR)
