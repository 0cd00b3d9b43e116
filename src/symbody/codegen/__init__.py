"""Code generation: the C and Python (numpy) emitters, compiled evaluators and operation counts."""
