"""Symbolic core: the atom table, calculus on atoms, evaluation, printing, and the export plan and optimizer."""
