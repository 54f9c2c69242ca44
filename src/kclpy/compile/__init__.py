"""The compiler: AST -> config graph (setters per name) -> bytecode ``Program``.

Constants are plain Python values; the compiler never imports the VM.
"""
