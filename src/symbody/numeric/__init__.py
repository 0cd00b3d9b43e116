"""Numerical analyses on derived equations."""

from .model import NumericModel

__all__ = ["NumericModel"]
