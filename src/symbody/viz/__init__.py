"""x"""
def animate(*a, **k): pass
