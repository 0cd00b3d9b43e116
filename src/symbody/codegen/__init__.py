"""Code generation: the C, Python (numpy) and MATLAB emitters, compiled evaluators and operation counts."""
