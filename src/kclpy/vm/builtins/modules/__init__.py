"""KCL system modules (``import math`` ...), one Python module each: ``<name>_module.py``."""
