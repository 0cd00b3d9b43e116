"""Code generation: export planning and optimization, Python and C emitters."""
