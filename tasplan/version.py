"""tasplan's version (the facade re-exports it; modules import it from here, not from the
facade, which imports everything)."""

__version__ = "0.1.0"
