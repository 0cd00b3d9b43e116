"""Symbolic core: the atom table, calculus on atoms, kinematics and dynamics."""
