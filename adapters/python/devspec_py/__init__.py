"""devspec's adapter for Python array libraries (see ../README.md)."""
