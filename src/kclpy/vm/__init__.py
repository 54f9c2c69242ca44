"""The virtual machine: runtime values, merging, the interpreter loop, builtins and plugins."""
