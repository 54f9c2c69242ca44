# SYNTAX TEST "source.toml.kcl-mod" "a kcl.mod manifest"
[package]
# <- punctuation.definition.table.begin.toml
#^^^^^^^ entity.name.section.table.toml
#       ^ punctuation.definition.table.end.toml
name = "web-app"
# <- support.type.property-name.toml
#    ^ punctuation.separator.key-value.toml
#      ^^^^^^^^^ string.quoted.double.basic.toml
edition = "v0.9.0"  # the KCL edition
#                   ^^^^^^^^^^^^^^^^^ comment.line.number-sign.toml

[dependencies]
#^^^^^^^^^^^^ entity.name.section.table.toml
k8s = "1.28"
helloworld = { oci = "oci://ghcr.io/kcl-lang/helloworld", tag = "0.1.0" }
#            ^ punctuation.definition.table.inline.begin.toml
#              ^^^ support.type.property-name.toml
#                    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ string.quoted.double.basic.toml
#                                                       ^ punctuation.separator.table.inline.toml
#                                                         ^^^ support.type.property-name.toml
#                                                                       ^ punctuation.definition.table.inline.end.toml
local = { path = "../lib", version = '0.1.0' }
#                                    ^^^^^^^ string.quoted.single.literal.toml

[profile]
entries = [
#         ^ punctuation.definition.array.begin.toml
    "main.k",
#   ^^^^^^^^ string.quoted.double.basic.toml
    "${KCL_MOD}/base.k",  # a comment in an array
#                         ^^^^^^^^^^^^^^^^^^^^^^^ comment.line.number-sign.toml
]
# <- punctuation.definition.array.end.toml
strict = true
#        ^^^^ constant.language.boolean.toml
retries = 3
#         ^ constant.numeric.toml
ratio = 0.5
#       ^^^ constant.numeric.toml
released = 2024-01-31T10:00:00Z
#          ^^^^^^^^^^^^^^^^^^^^ constant.other.time.datetime.toml
"quoted.key" = """
#<---------- support.type.property-name.quoted.toml
#              ^^^ string.quoted.triple.basic.toml
a multi-line \t string
#            ^^ constant.character.escape.toml
"""
site.owner = 'ops'
# <- support.type.property-name.toml
#   ^ punctuation.separator.dot.toml
#    ^^^^^ support.type.property-name.toml
