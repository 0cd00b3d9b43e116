"""The version of symbody: the one place it is written (pyproject reads it from here)."""

__version__ = "0.2.0.dev0"
