"""Modelling API: System, Base, Point, Frame, Vector, Tensor, Solid, loads, constraints, joints."""
