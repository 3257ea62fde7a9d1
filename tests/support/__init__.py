"""Helpers shared by test modules (one module per concern). Test modules import from here, never from each other."""
